/**
 * The user's named targets (like kubectl contexts): `$CLOUDORCH_CONFIG`, else
 * `$XDG_CONFIG_HOME/cloudorch/config.yaml` (default `~/.config/cloudorch/config.yaml`). Written
 * atomically (a temporary file renamed over the old one) with mode 0600.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';
import * as z from 'zod/mini';
import './zod-locale.js';

/** `--target dev` is always the local control plane; no stored target may take the name. */
export const DEV_TARGET = 'dev';

const nonEmpty = z.string().check(z.minLength(1));
const ids = z.array(nonEmpty).check(z.minLength(1));

/** One deployed stack: what the CLI needs to reach it and to plan as its functions would. */
export const StoredTargetSchema = z.strictObject({
  table: nonEmpty,
  region: nonEmpty,
  stateMachineArn: z.optional(nonEmpty),
  profile: z.optional(nonEmpty),
  /** The stack output PolicyBundleUrl (`s3://bucket/key`). */
  policyBundle: z.optional(nonEmpty),
  /** The stack outputs RolloutTableName and RolloutStateMachineArn, for `cloudorch rollout`. */
  rolloutTable: z.optional(nonEmpty),
  rolloutStateMachineArn: z.optional(nonEmpty),
  /** The stack's deployment defaults for creates; they must match the stack's own. */
  defaults: z.optional(
    z.strictObject({
      clusterRoleArn: z.optional(nonEmpty),
      nodeRoleArn: z.optional(nonEmpty),
      subnetIds: z.optional(ids),
      securityGroupIds: z.optional(ids),
    }),
  ),
});
export type StoredTarget = z.infer<typeof StoredTargetSchema>;

const ConfigSchema = z.strictObject({
  currentTarget: z.optional(nonEmpty),
  targets: z._default(z.record(z.string(), StoredTargetSchema), {}),
});
export type CliConfig = z.infer<typeof ConfigSchema>;

export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';
}

/** The rule for a stored target's name: one plain token, so shells and completion keep it whole. */
export const TARGET_NAME_RULE =
  'letters, digits, ".", "_" and "-", starting with a letter or digit, at most 63 characters';
const TARGET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Refuses a target name outside {@link TARGET_NAME_RULE}. */
export function checkTargetName(name: string): void {
  if (!TARGET_NAME.test(name))
    throw new ConfigFileError(`target name ${JSON.stringify(name)} is not allowed: use ${TARGET_NAME_RULE}`);
}

export function configPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.CLOUDORCH_CONFIG) return env.CLOUDORCH_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'cloudorch', 'config.yaml');
}

/** The file's targets; an absent file is an empty configuration, a malformed one an error. */
export async function readConfig(path: string): Promise<CliConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { targets: {} };
    throw new ConfigFileError(`cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
  let doc: unknown;
  try {
    doc = parse(text) ?? {};
  } catch (e) {
    throw new ConfigFileError(`${path} is not YAML: ${(e as Error).message}`, { cause: e });
  }
  const parsed = ConfigSchema.safeParse(doc);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`);
    throw new ConfigFileError(`${path} is not a valid CloudOrch configuration: ${issues.join('; ')}`);
  }
  if (Object.hasOwn(parsed.data.targets, DEV_TARGET))
    throw new ConfigFileError(`${path}: target name '${DEV_TARGET}' is reserved for cloudorch dev`);
  return parsed.data;
}

/** Replaces the file in one rename, so a reader never sees half of it; only the user may read it. */
export async function writeConfig(path: string, config: CliConfig): Promise<void> {
  // Checked on write (set-target), so a file from before the rule still reads and can be fixed.
  for (const name of Object.keys(config.targets)) checkTargetName(name);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, stringify(config), { mode: 0o600 });
    // The mode above is masked by the umask; chmod is not.
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw new ConfigFileError(`cannot write ${path}: ${(e as Error).message}`, { cause: e });
  }
}
