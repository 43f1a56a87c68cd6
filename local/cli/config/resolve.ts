/**
 * Which target a command runs against, decided from its flags, the environment and the named
 * targets, without touching the network. Precedence: flags > environment > the current named target
 * > a running `cloudorch dev`. A stack is taken whole from one place (flags and environment, or one
 * named target, flags overriding its fields), never pieced together from two. `--target NAME` is a
 * flag, so the target it names beats the environment. `AWS_REGION` and `AWS_PROFILE` alone never
 * select AWS: only a table does (`--table`, `CLOUDORCH_TABLE_NAME`, or a target); `AWS_REGION` then
 * fills the region when no flag gives one.
 */
import { DEFAULTS_ENV, ENV } from '../../../lambdas/config.js';
import type { PlanDefaults } from '../../../lambdas/core/plan/types.js';
import { defaultsFromEnv } from '../../../lambdas/handlers/deployment-defaults.js';
import { parseS3Url } from '../../../lambdas/policy/s3-url.js';
import { type CliConfig, ConfigFileError, DEV_TARGET, type StoredTarget } from './file.js';

/** The program options that choose a target. */
export interface TargetOptions {
  readonly target?: string;
  readonly region?: string;
  readonly table?: string;
  readonly stateMachineArn?: string;
  readonly profile?: string;
  readonly policyBundle?: string;
  readonly rolloutTable?: string;
  readonly rolloutStateMachineArn?: string;
}

/** A value and where it came from (a flag, an environment variable, a target in a file), for errors. */
export interface Sourced {
  readonly value: string;
  readonly from: string;
}

export interface AwsSelection {
  readonly kind: 'aws';
  readonly table: Sourced;
  readonly region: Sourced;
  readonly stateMachineArn?: Sourced;
  readonly profile?: Sourced;
  /** The bundle the stack serves (stack output PolicyBundleUrl), when known. */
  readonly policyBundle?: Sourced;
  /** The rollout table and the Rollout state machine (stack outputs RolloutTableName, RolloutStateMachineArn). */
  readonly rolloutTable?: Sourced;
  readonly rolloutStateMachineArn?: Sourced;
  readonly defaults: PlanDefaults;
  readonly defaultsFrom: string;
}

export type Selection = { readonly kind: 'dev' } | AwsSelection;

export class TargetConfigError extends Error {
  override readonly name = 'TargetConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;
type Field =
  | 'table'
  | 'region'
  | 'stateMachineArn'
  | 'profile'
  | 'policyBundle'
  | 'rolloutTable'
  | 'rolloutStateMachineArn';

const FLAG: Record<Field, string> = {
  table: '--table',
  region: '--region',
  stateMachineArn: '--state-machine-arn',
  profile: '--profile',
  policyBundle: '--policy-bundle',
  rolloutTable: '--rollout-table',
  rolloutStateMachineArn: '--rollout-state-machine-arn',
};
/** The environment variables of each field: the functions' own names, and the AWS SDK's. */
const ENV_OF: Record<Field, string> = {
  table: ENV.table,
  region: 'AWS_REGION',
  stateMachineArn: ENV.stateMachine,
  profile: 'AWS_PROFILE',
  policyBundle: ENV.policyBundleS3,
  rolloutTable: ENV.rolloutTable,
  rolloutStateMachineArn: ENV.rolloutStateMachine,
};
const FIELDS = Object.keys(FLAG) as Field[];

type Fields = Partial<Record<Field, Sourced>>;

function fromFlags(flags: TargetOptions): Fields {
  const out: Fields = {};
  for (const f of FIELDS) {
    const value = flags[f];
    if (value) out[f] = { value, from: FLAG[f] };
  }
  return out;
}

function fromEnv(env: Env): Fields {
  const out: Fields = {};
  for (const f of FIELDS) {
    const value = env[ENV_OF[f]];
    if (value) out[f] = { value, from: ENV_OF[f] };
  }
  return out;
}

function fromStored(name: string, t: StoredTarget, path: string): Fields {
  const from = `target '${name}' in ${path}`;
  const out: Fields = {};
  for (const f of FIELDS) {
    const value = t[f];
    if (value) out[f] = { value, from };
  }
  return out;
}

function aws(fields: Fields, defaults: PlanDefaults, defaultsFrom: string): AwsSelection {
  const { table, region, stateMachineArn, profile, policyBundle, rolloutTable, rolloutStateMachineArn } =
    fields;
  if (!table) throw new TargetConfigError('no table');
  if (!region)
    throw new TargetConfigError(
      `table ${table.value} (from ${table.from}) needs a region: --region or AWS_REGION`,
    );
  if (policyBundle && !parseS3Url(policyBundle.value))
    throw new TargetConfigError(
      `policy bundle ${policyBundle.value} (from ${policyBundle.from}) must look like s3://bucket/key (the stack output PolicyBundleUrl)`,
    );
  return {
    kind: 'aws',
    table,
    region,
    ...(stateMachineArn ? { stateMachineArn } : {}),
    ...(profile ? { profile } : {}),
    ...(policyBundle ? { policyBundle } : {}),
    ...(rolloutTable ? { rolloutTable } : {}),
    ...(rolloutStateMachineArn ? { rolloutStateMachineArn } : {}),
    defaults,
    defaultsFrom,
  };
}

/** A target's defaults without the absent members (exact optional properties). */
function storedDefaults(t: StoredTarget): PlanDefaults {
  return Object.fromEntries(
    Object.entries(t.defaults ?? {}).filter(([, v]) => v !== undefined),
  ) as PlanDefaults;
}

function named(name: string, config: CliConfig, path: string, flags: Fields, how: string): AwsSelection {
  const stored = config.targets[name];
  if (!stored)
    throw new TargetConfigError(
      `${how} '${name}' is not defined in ${path} (cloudorch config get-targets lists the targets)`,
    );
  return aws(
    { ...fromStored(name, stored, path), ...flags },
    storedDefaults(stored),
    `target '${name}' in ${path}`,
  );
}

/** CloudOrch's own variables that only mean something beside a table. */
const STACK_ONLY_ENV = [
  ENV.stateMachine,
  ENV.policyBundleS3,
  ENV.rolloutTable,
  ENV.rolloutStateMachine,
  ...Object.values(DEFAULTS_ENV),
];

/**
 * The config file, or why it could not be read: a broken file only matters to a selection that
 * needs it (a named or current target), never to `--target dev` or a stack given by flags or env.
 */
export type ConfigOrError = CliConfig | ConfigFileError;

const loaded = (c: ConfigOrError): CliConfig => {
  if (c instanceof ConfigFileError) throw c;
  return c;
};

export function selectTarget(
  flagOpts: TargetOptions,
  env: Env,
  configOrError: ConfigOrError,
  path: string,
): Selection {
  const flags = fromFlags(flagOpts);
  if (flagOpts.target === DEV_TARGET) {
    const extra = Object.values(flags).map((s) => s.from);
    if (extra.length > 0)
      throw new TargetConfigError(
        `--target ${DEV_TARGET} is the local control plane: it takes no ${extra.join(', ')}`,
      );
    return { kind: 'dev' };
  }
  if (flagOpts.target) return named(flagOpts.target, loaded(configOrError), path, flags, '--target');
  if (flags.table || env[ENV.table]) {
    // The stack is the flags' and the environment's: its deployment defaults are the functions' names.
    return aws({ ...fromEnv(env), ...flags }, defaultsFromEnv(env), 'the environment (CLOUDORCH_DEFAULT_*)');
  }
  const stray = STACK_ONLY_ENV.find((n) => env[n]);
  if (stray)
    throw new TargetConfigError(
      `${stray} is set but ${ENV.table} is not: set both to target a deployed stack, or unset ${stray}`,
    );
  const config = loaded(configOrError);
  const current = config.currentTarget;
  if (current && current !== DEV_TARGET) return named(current, config, path, flags, 'current target');
  const given = Object.values(flags);
  if (given.length > 0)
    throw new TargetConfigError(
      `${given.map((s) => s.from).join(', ')} needs a deployed stack's table: --table, ${ENV.table}, or a named target (cloudorch config set-target)`,
    );
  return { kind: 'dev' };
}

/** One line naming the target and where each of its values came from. */
export function describeSelection(s: AwsSelection): string {
  const same = s.table.from === s.region.from;
  return same
    ? `table ${s.table.value} in ${s.region.value} (from ${s.table.from})`
    : `table ${s.table.value} (from ${s.table.from}) in ${s.region.value} (from ${s.region.from})`;
}
