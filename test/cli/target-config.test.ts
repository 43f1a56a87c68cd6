/**
 * Which target the CLI picks, and the named-target file: the precedence table over fake
 * environments and configurations, the file's atomic 0600 writes, and `cloudorch config` through
 * the real binary. No target is contacted here (version.test.ts and completion.test.ts run a dev).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ENV } from '../../lambdas/config.js';
import {
  type CliConfig,
  ConfigFileError,
  configPath,
  readConfig,
  writeConfig,
} from '../../local/cli/config/file.js';
import {
  type Selection,
  selectTarget,
  TargetConfigError,
  type TargetOptions,
} from '../../local/cli/config/resolve.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const CLI = join(ROOT, 'bin/cloudorch.mjs');
const PATH = '/home/u/.config/cloudorch/config.yaml';
const CONFIG: CliConfig = {
  currentTarget: 'prod',
  targets: {
    prod: {
      table: 'prod-table',
      region: 'eu-west-1',
      stateMachineArn: 'arn:prod-sm',
      policyBundle: 's3://prod-bucket/bundle.tar.gz',
      defaults: { subnetIds: ['subnet-p1', 'subnet-p2'] },
    },
    staging: { table: 'staging-table', region: 'us-east-2' },
  },
};
const NO_CURRENT: CliConfig = { targets: CONFIG.targets };

type Env = Record<string, string>;
const pick = (flags: TargetOptions, env: Env, config: CliConfig = CONFIG): Selection =>
  selectTarget(flags, env, config, PATH);
/** The selection in a few words: the mode, or table@region with each value's source. */
function brief(s: Selection): string {
  if (s.kind === 'dev') return 'dev';
  return `${s.table.value}@${s.region.value} [${s.table.from} | ${s.region.from}]`;
}

describe('a config file that cannot be read', () => {
  const broken = new ConfigFileError(`${PATH} is not YAML: bad`);
  it('does not stop --target dev or a stack given by flags or the environment', () => {
    expect(brief(selectTarget({ target: 'dev' }, {}, broken, PATH))).toBe('dev');
    expect(brief(selectTarget({ table: 't', region: 'r' }, {}, broken, PATH))).toMatch(/^t@r /);
    expect(brief(selectTarget({}, { CLOUDORCH_TABLE_NAME: 't', AWS_REGION: 'r' }, broken, PATH))).toMatch(
      /^t@r /,
    );
  });

  it('is the error when the selection needs it: a named target, or finding the current one', () => {
    expect(() => selectTarget({ target: 'prod' }, {}, broken, PATH)).toThrow(broken);
    expect(() => selectTarget({}, {}, broken, PATH)).toThrow(broken);
  });
});

describe('target precedence: flags > environment > current named target > running dev', () => {
  const cases: { why: string; flags: TargetOptions; env: Env; config?: CliConfig; want: string }[] = [
    { why: 'nothing configured: the running dev', flags: {}, env: {}, config: { targets: {} }, want: 'dev' },
    {
      why: 'AWS_REGION alone is common in a shell and must not switch to AWS',
      flags: {},
      env: { AWS_REGION: 'us-west-2', AWS_PROFILE: 'x' },
      config: NO_CURRENT,
      want: 'dev',
    },
    {
      why: 'the current target when neither flags nor environment name a table',
      flags: {},
      env: {},
      want: `prod-table@eu-west-1 [target 'prod' in ${PATH} | target 'prod' in ${PATH}]`,
    },
    {
      why: "the current target's region beats an ambient AWS_REGION",
      flags: {},
      env: { AWS_REGION: 'us-west-2' },
      want: `prod-table@eu-west-1 [target 'prod' in ${PATH} | target 'prod' in ${PATH}]`,
    },
    {
      why: 'the environment beats the current target, and AWS_REGION fills the region',
      flags: {},
      env: { [ENV.table]: 'env-table', AWS_REGION: 'ap-south-1' },
      want: `env-table@ap-south-1 [${ENV.table} | AWS_REGION]`,
    },
    {
      why: 'flags beat the environment',
      flags: { table: 'flag-table', region: 'sa-east-1' },
      env: { [ENV.table]: 'env-table', AWS_REGION: 'ap-south-1' },
      want: 'flag-table@sa-east-1 [--table | --region]',
    },
    {
      why: '--table with AWS_REGION: the flag table, the environment region',
      flags: { table: 'flag-table' },
      env: { AWS_REGION: 'ap-south-1' },
      want: 'flag-table@ap-south-1 [--table | AWS_REGION]',
    },
    {
      why: '--target is a flag: the target it names beats the environment',
      flags: { target: 'staging' },
      env: { [ENV.table]: 'env-table', AWS_REGION: 'ap-south-1' },
      want: `staging-table@us-east-2 [target 'staging' in ${PATH} | target 'staging' in ${PATH}]`,
    },
    {
      why: 'a flag overrides one field of the chosen target',
      flags: { target: 'staging', region: 'eu-north-1' },
      env: {},
      want: `staging-table@eu-north-1 [target 'staging' in ${PATH} | --region]`,
    },
    {
      why: '--target dev is the local control plane, whatever is current or in the environment',
      flags: { target: 'dev' },
      env: { [ENV.table]: 'env-table', AWS_REGION: 'ap-south-1' },
      want: 'dev',
    },
    {
      why: 'use-target dev makes dev current',
      flags: {},
      env: {},
      config: { ...CONFIG, currentTarget: 'dev' },
      want: 'dev',
    },
  ];
  it.each(cases)('$why', ({ flags, env, config, want }) => {
    expect(brief(pick(flags, env, config))).toBe(want);
  });

  it("takes the stack's policy bundle, state machine and deployment defaults from the same place as its table", () => {
    // --target takes the stack whole from the file: an unrelated default in the environment is not read.
    const fromTarget = pick({ target: 'prod' }, { [ENV.subnets]: 'subnet-unrelated' });
    expect(fromTarget).toMatchObject({
      kind: 'aws',
      stateMachineArn: { value: 'arn:prod-sm' },
      policyBundle: { value: 's3://prod-bucket/bundle.tar.gz' },
      defaults: { subnetIds: ['subnet-p1', 'subnet-p2'] },
    });
    const fromEnv = pick(
      { policyBundle: 's3://flag/b.tar.gz' },
      {
        [ENV.table]: 't',
        AWS_REGION: 'r',
        [ENV.stateMachine]: 'arn:env-sm',
        [ENV.policyBundleS3]: 's3://env/b.tar.gz',
        [ENV.subnets]: 'subnet-e1,subnet-e2',
      },
    );
    expect(fromEnv).toMatchObject({
      stateMachineArn: { value: 'arn:env-sm', from: ENV.stateMachine },
      policyBundle: { value: 's3://flag/b.tar.gz', from: '--policy-bundle' },
      defaults: { subnetIds: ['subnet-e1', 'subnet-e2'] },
    });
    // A flag table with no defaults in the environment: none, never the current target's.
    expect(pick({ table: 't', region: 'r' }, {})).toMatchObject({ defaults: {} });
  });
});

describe('errors say where the bad value came from', () => {
  const bad: { why: string; flags: TargetOptions; env: Env; config?: CliConfig; message: RegExp }[] = [
    {
      why: 'a table without a region names the table source',
      flags: {},
      env: { [ENV.table]: 't' },
      message: new RegExp(`table t \\(from ${ENV.table}\\) needs a region: --region or AWS_REGION`),
    },
    {
      why: 'a region flag without any table',
      flags: { region: 'eu-west-1' },
      env: {},
      config: NO_CURRENT,
      message: /--region needs a deployed stack's table: --table, CLOUDORCH_TABLE_NAME, or a named target/,
    },
    {
      why: 'a stack variable without the table variable',
      flags: {},
      env: { [ENV.stateMachine]: 'arn:sm' },
      message: new RegExp(`${ENV.stateMachine} is set but ${ENV.table} is not`),
    },
    {
      why: 'a malformed policy bundle names the target and file',
      flags: { target: 'staging', policyBundle: 'https://x' },
      env: {},
      message: /policy bundle https:\/\/x \(from --policy-bundle\) must look like s3:\/\/bucket\/key/,
    },
    {
      why: 'an unknown --target names the file',
      flags: { target: 'nope' },
      env: {},
      message: new RegExp(`--target 'nope' is not defined in ${PATH}`),
    },
    {
      why: 'a current target that is gone names the file',
      flags: {},
      env: {},
      config: { currentTarget: 'gone', targets: {} },
      message: new RegExp(`current target 'gone' is not defined in ${PATH}`),
    },
    {
      why: '--target dev takes no stack flags',
      flags: { target: 'dev', table: 't' },
      env: {},
      message: /--target dev is the local control plane: it takes no --table/,
    },
  ];
  it.each(bad)('$why', ({ flags, env, config, message }) => {
    expect(() => pick(flags, env, config)).toThrow(TargetConfigError);
    expect(() => pick(flags, env, config)).toThrow(message);
  });
});

describe('the named-target file', () => {
  it('lives under XDG_CONFIG_HOME (default ~/.config), unless CLOUDORCH_CONFIG names it', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/cloudorch/config.yaml');
    expect(configPath({ HOME: '/h' })).toMatch(/\/\.config\/cloudorch\/config\.yaml$/);
    expect(configPath({ XDG_CONFIG_HOME: '/x', CLOUDORCH_CONFIG: '/c.yaml' })).toBe('/c.yaml');
  });

  it('is written whole, by rename, readable by its owner only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudorch-cfg-'));
    const path = join(dir, 'sub', 'config.yaml');
    await writeConfig(path, CONFIG);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, 'sub'))).toEqual(['config.yaml']);
    expect(await readConfig(path)).toEqual(CONFIG);
    // An absent file is no targets; a broken one is an error naming the file.
    expect(await readConfig(join(dir, 'none.yaml'))).toEqual({ targets: {} });
    writeFileSync(path, 'targets:\n  prod:\n    table: t\n');
    await expect(readConfig(path)).rejects.toThrow(ConfigFileError);
    await expect(readConfig(path)).rejects.toThrow(
      new RegExp(`${path} is not a valid.*targets\\.prod\\.region`),
    );
    // zod's English message (zod/mini sets no locale of its own).
    await expect(readConfig(path)).rejects.toThrow(
      'targets.prod.region: Invalid input: expected string, received undefined',
    );
    writeFileSync(path, 'targets:\n  dev:\n    table: t\n    region: r\n');
    await expect(readConfig(path)).rejects.toThrow(/'dev' is reserved/);
  });
});

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
function cloudorch(args: string[], env: Env): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env },
        cwd: ROOT,
        timeout: 60_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('cloudorch config (the real binary)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudorch-cfg-cli-'));
  // The default location, under XDG_CONFIG_HOME; no dev runs, so the dev fallback is an error.
  const env = { XDG_CONFIG_HOME: dir, CLOUDORCH_DEV_STATE: join(dir, 'no-dev.json') };
  const file = join(dir, 'cloudorch', 'config.yaml');

  it('set-target, use-target, get-targets, current-target, delete-target', async () => {
    const set = await cloudorch(
      [
        'config',
        'set-target',
        'prod',
        '--table',
        'prod-table',
        '--region',
        'eu-west-1',
        '--policy-bundle',
        's3://b/bundle.tar.gz',
        '--subnet-ids',
        'subnet-1, subnet-2',
      ],
      env,
    );
    expect(set, set.stderr).toMatchObject({ code: 0, stdout: `target 'prod' set (${file})\n` });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(parse(readFileSync(file, 'utf8'))).toEqual({
      targets: {
        prod: {
          table: 'prod-table',
          region: 'eu-west-1',
          policyBundle: 's3://b/bundle.tar.gz',
          defaults: { subnetIds: ['subnet-1', 'subnet-2'] },
        },
      },
    });
    // A second set-target changes the fields given and keeps the others.
    expect(
      (await cloudorch(['config', 'set-target', 'prod', '--state-machine-arn', 'arn:sm'], env)).code,
    ).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).targets.prod).toMatchObject({
      table: 'prod-table',
      stateMachineArn: 'arn:sm',
    });
    expect((await cloudorch(['config', 'current-target'], env)).stdout).toBe('dev\n');
    expect((await cloudorch(['config', 'use-target', 'prod'], env)).code).toBe(0);
    expect((await cloudorch(['config', 'current-target'], env)).stdout).toBe('prod\n');
    const list = await cloudorch(['config', 'get-targets'], env);
    expect(list.stdout).toMatch(/^\*\s+prod\s+prod-table\s+eu-west-1\s+arn:sm\s+s3:\/\/b\/bundle.tar.gz$/m);
    expect(list.stdout).toMatch(/^\s+dev\s+\(cloudorch dev\)/m);
    const json = JSON.parse((await cloudorch(['config', 'get-targets', '-o', 'json'], env)).stdout);
    expect(json).toMatchObject({ currentTarget: 'prod', targets: [{ name: 'prod', table: 'prod-table' }] });
    expect((await cloudorch(['config', 'delete-target', 'prod'], env)).code).toBe(0);
    expect((await cloudorch(['config', 'current-target'], env)).stdout).toBe('dev\n');
  });

  it('refuses what would make a broken file, and changes nothing', async () => {
    const before = (() => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    })();
    const noRegion = await cloudorch(['config', 'set-target', 'x', '--table', 't'], env);
    expect(noRegion).toMatchObject({ code: 1 });
    expect(noRegion.stderr).toMatch(/target 'x': --region: .*a target needs --table and --region/);
    expect(
      (await cloudorch(['config', 'set-target', 'dev', '--table', 't', '--region', 'r'], env)).stderr,
    ).toMatch(/'dev' is reserved/);
    expect((await cloudorch(['config', 'use-target', 'nope'], env)).stderr).toMatch(
      new RegExp(`no target 'nope' in ${file}`),
    );
    const after = (() => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    })();
    expect(after).toBe(before);
  });

  it('takes the stack from the environment, and says which variable a bad value came from', async () => {
    const r = await cloudorch(['get'], { ...env, [ENV.table]: 'env-table' });
    expect(r).toMatchObject({
      code: 1,
      stderr: `error: table env-table (from ${ENV.table}) needs a region: --region or AWS_REGION\n`,
    });
    // AWS_REGION alone selects nothing: the dev fallback, which is not running here.
    const region = await cloudorch(['get'], { ...env, AWS_REGION: 'eu-west-1' });
    expect(region.stderr).toMatch(/^error: no running 'cloudorch dev' found/);
    const target = await cloudorch(['--target', 'nope', 'get'], env);
    expect(target.stderr).toBe(
      `error: --target 'nope' is not defined in ${file} (cloudorch config get-targets lists the targets)\n`,
    );
  });
});
