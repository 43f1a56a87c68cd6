/**
 * `cloudorch config`: named targets, like kubectl contexts. `set-target` stores a deployed stack's
 * names, `use-target` makes one current, and `--target NAME` picks one for a single command.
 */
import { type Command, Option } from 'commander';
import { stringify } from 'yaml';
import { parseS3Url } from '../../../lambdas/policy/s3-url.js';
import type { Cli } from '../cli.js';
import {
  type CliConfig,
  ConfigFileError,
  configPath,
  DEV_TARGET,
  readConfig,
  StoredTargetSchema,
  writeConfig,
} from '../config/file.js';
import { type Output, table } from '../format.js';
import { EXIT } from './exit.js';

interface SetTargetFlags {
  table?: string;
  region?: string;
  stateMachineArn?: string;
  profile?: string;
  policyBundle?: string;
  rolloutTable?: string;
  rolloutStateMachineArn?: string;
  clusterRoleArn?: string;
  nodeRoleArn?: string;
  subnetIds?: string;
  securityGroupIds?: string;
}

const listOf = (v: string | undefined) =>
  v
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Drops absent members, so a merge keeps the stored value of every flag not given. */
function given<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A new target, or an existing one with the given fields replaced. */
export function setTarget(config: CliConfig, name: string, flags: SetTargetFlags): CliConfig {
  if (name === DEV_TARGET) throw new ConfigFileError(`'${DEV_TARGET}' is reserved for cloudorch dev`);
  const old = config.targets[name];
  const defaults = {
    ...old?.defaults,
    ...given({
      clusterRoleArn: flags.clusterRoleArn,
      nodeRoleArn: flags.nodeRoleArn,
      subnetIds: listOf(flags.subnetIds),
      securityGroupIds: listOf(flags.securityGroupIds),
    }),
  };
  const next = {
    ...old,
    ...given({
      table: flags.table,
      region: flags.region,
      stateMachineArn: flags.stateMachineArn,
      profile: flags.profile,
      policyBundle: flags.policyBundle,
      rolloutTable: flags.rolloutTable,
      rolloutStateMachineArn: flags.rolloutStateMachineArn,
    }),
    ...(Object.keys(defaults).length > 0 ? { defaults } : {}),
  };
  const parsed = StoredTargetSchema.safeParse(next);
  if (!parsed.success) {
    const missing = parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`);
    throw new ConfigFileError(
      `target '${name}': ${missing.join('; ')} (a target needs --table and --region)`,
    );
  }
  if (parsed.data.policyBundle && !parseS3Url(parsed.data.policyBundle))
    throw new ConfigFileError(
      `--policy-bundle must look like s3://bucket/key (the stack output PolicyBundleUrl)`,
    );
  return { ...config, targets: { ...config.targets, [name]: parsed.data } };
}

function known(config: CliConfig, name: string, path: string): void {
  if (name !== DEV_TARGET && !Object.hasOwn(config.targets, name))
    throw new ConfigFileError(`no target '${name}' in ${path} (cloudorch config get-targets lists them)`);
}

function listing(config: CliConfig, format: string): string {
  const current = config.currentTarget ?? DEV_TARGET;
  const rows = Object.entries(config.targets).map(([name, t]) => ({ name, ...t }));
  if (format === 'json') return JSON.stringify({ currentTarget: current, targets: rows }, null, 2);
  if (format === 'yaml') return stringify({ currentTarget: current, targets: rows }).trimEnd();
  const lines = [['CURRENT', 'NAME', 'TABLE', 'REGION', 'STATE MACHINE', 'POLICY BUNDLE']];
  lines.push([current === DEV_TARGET ? '*' : '', DEV_TARGET, '(cloudorch dev)', '', '', '']);
  for (const r of rows)
    lines.push([
      r.name === current ? '*' : '',
      r.name,
      r.table,
      r.region,
      r.stateMachineArn ?? '',
      r.policyBundle ?? '',
    ]);
  return table(lines).join('\n');
}

/** Reads the file, applies `change`, writes it back when it returns a new configuration. */
async function edit(
  o: Output,
  change: (c: CliConfig, path: string) => CliConfig,
  done: string,
): Promise<void> {
  const path = configPath();
  await writeConfig(path, change(await readConfig(path), path));
  o.out(`${done} (${path})`);
  process.exitCode = EXIT.ok;
}

function registerSetTarget(config: Command, o: () => Output): void {
  config
    .command('set-target <name>')
    .description('store a deployed stack as a named target (fields not given keep their stored value)')
    .option('--table <name>', 'desired-state table (stack output TableName)')
    .option('--region <region>', 'AWS region of the stack')
    .option('--state-machine-arn <arn>', 'Reconcile state machine (stack output StateMachineArn)')
    .option('--profile <name>', 'AWS profile to use')
    .option('--policy-bundle <s3-url>', 'policy bundle the stack serves (stack output PolicyBundleUrl)')
    .option('--rollout-table <name>', 'rollout table (stack output RolloutTableName)')
    .option(
      '--rollout-state-machine-arn <arn>',
      'Rollout state machine (stack output RolloutStateMachineArn)',
    )
    .option('--cluster-role-arn <arn>', "the stack's default cluster role, for plan")
    .option('--node-role-arn <arn>', "the stack's default node role, for plan")
    .option('--subnet-ids <ids>', "the stack's default subnets (comma-separated), for plan")
    .option('--security-group-ids <ids>', "the stack's default security groups (comma-separated), for plan")
    .action((name: string, flags: SetTargetFlags) =>
      edit(o(), (c) => setTarget(c, name, flags), `target '${name}' set`),
    );
}

export function registerConfig({ program, o }: Cli): void {
  const config = program
    .command('config')
    .description('named targets: deployed stacks to run commands against');
  registerSetTarget(config, o);
  config
    .command('use-target <name>')
    .description(`make a target current ('${DEV_TARGET}': the running cloudorch dev)`)
    .action((name: string) =>
      edit(
        o(),
        (c, path) => {
          known(c, name, path);
          return { ...c, currentTarget: name };
        },
        `current target is now '${name}'`,
      ),
    );
  config
    .command('get-targets')
    .description('list the named targets; * marks the current one')
    .addOption(
      new Option('-o, --output <format>', 'table, json or yaml')
        .choices(['table', 'json', 'yaml'])
        .default('table'),
    )
    .action(async (opts: { output: string }) => {
      o().out(listing(await readConfig(configPath()), opts.output));
    });
  config
    .command('current-target')
    .description("print the current target's name")
    .action(async () => {
      o().out((await readConfig(configPath())).currentTarget ?? DEV_TARGET);
    });
  config
    .command('delete-target <name>')
    .description('remove a named target (the current one falls back to dev)')
    .action((name: string) =>
      edit(
        o(),
        (c, path) => {
          if (name === DEV_TARGET)
            throw new ConfigFileError(`'${DEV_TARGET}' is built in and cannot be deleted`);
          known(c, name, path);
          const { [name]: _gone, ...targets } = c.targets;
          const { currentTarget, ...rest } = c;
          return { ...rest, targets, ...(currentTarget && currentTarget !== name ? { currentTarget } : {}) };
        },
        `target '${name}' deleted`,
      ),
    );
}
