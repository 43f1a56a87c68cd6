/**
 * The npm package as a user gets it: `npm pack` (prepack builds dist/ and checks the prebuilt policy
 * bundle), `npm install -g` into a temporary prefix, then the installed `cloudorch` runs with only
 * Node on PATH (no opa, Go, Java or tsx), from a folder that is not the package's: --help, the
 * demo, and `plan` against a running `cloudorch dev`. Then the same tarball in another CDK app's
 * project: `cloudorch/cdk` synthesizes the construct from the prebuilt function bundles it ships.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../lambdas/functions/catalog.js';
import { ROOT } from '../../scripts/build-dist.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'cloudorch-pack-'));
const prefix = join(tmp, 'prefix');
const work = join(tmp, 'work');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const installed = join(prefix, 'lib', 'node_modules', 'cloudorch');
const BIN = join(prefix, 'bin', 'cloudorch');
/** Only Node and the installed package: no opa, tsx or test servers, and no setup cache. */
const userEnv = {
  PATH: [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
  HOME: join(tmp, 'home'),
  CLOUDORCH_CACHE: join(tmp, 'home', 'cache'),
  CLOUDORCH_DEV_STATE: join(tmp, 'dev.json'),
  NO_COLOR: '1',
};

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function sh(file: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Result> {
  return new Promise((resolve) => {
    execFile(file, args, { ...opts, timeout: 75_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const cloudorch = (...args: string[]) => sh(BIN, args, { cwd: work, env: userEnv });
const tarball = join(tmp, `cloudorch-${version}.tgz`);
/** The machine's npm (and its cache) with the project's tools on PATH, as `npm pack` runs in a checkout. */
const npmEnv = {
  ...process.env,
  npm_config_loglevel: 'error',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};

let dev: ChildProcess | undefined;

beforeAll(async () => {
  mkdirSync(work, { recursive: true });
  mkdirSync(userEnv.HOME, { recursive: true });
  const packed = await sh('npm', ['pack', '--pack-destination', tmp], { cwd: ROOT, env: npmEnv });
  expect(packed.code, packed.stderr).toBe(0);
  const install = await sh('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', tarball], {
    cwd: work,
    env: npmEnv,
  });
  expect(install.code, install.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  if (dev && dev.exitCode === null) {
    const exited = new Promise((r) => dev?.once('exit', r));
    dev.kill('SIGINT');
    await exited;
  }
  rmSync(tmp, { recursive: true, force: true });
});

describe('npm package', () => {
  it('ships the CLI, its run-time files and the prebuilt bundle, and no tests, sources or bench', () => {
    for (const f of ['dist/cli.mjs', 'policies/prebuilt/bundle.tar.gz', 'local/dev/dashboard/index.html'])
      expect(existsSync(join(installed, f)), f).toBe(true);
    for (const f of ['test', 'bench', 'local/cli', 'lambdas', 'policies/decision_test.rego', 'scripts'])
      expect(existsSync(join(installed, f)), f).toBe(false);
    // The CDK construct's peers are optional: installing the CLI does not pull them.
    expect(existsSync(join(installed, 'node_modules', 'aws-cdk-lib'))).toBe(false);
  });

  it('answers --version with the package version, and --help', async () => {
    expect(await cloudorch('--version')).toMatchObject({ code: 0, stdout: `${version}\n` });
    const r = await cloudorch('--help');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: cloudorch');
  });

  it('runs the demo from any folder with the shipped policy bundle, and exits 0', async () => {
    const r = await cloudorch('dev', '--demo', '--port', '0');
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('drift corrected');
  }, 90_000);

  it('plans an example against a running cloudorch dev', async () => {
    let log = '';
    dev = spawn(BIN, ['dev', '--port', '0'], { cwd: work, env: userEnv });
    dev.stdout?.on('data', (d: Buffer) => {
      log += d.toString();
    });
    dev.stderr?.on('data', (d: Buffer) => {
      log += d.toString();
    });
    for (let i = 0; !(existsSync(userEnv.CLOUDORCH_DEV_STATE) && log.includes('press Ctrl-C')); i++) {
      if (i > 600 || dev.exitCode !== null) throw new Error(`cloudorch dev did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const r = await cloudorch('plan', '-f', join(installed, 'examples', 'dev-small.yaml'));
    // 2: the plan has changes (the cluster does not exist yet), and policy allows them.
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(2);
    expect(r.stdout).toContain('team-payments/dev-small');
  }, 90_000);
});

/** Another CDK app: a Stack with the construct, synthesized by Node from the installed package. */
const APP = `import { App, Stack } from 'aws-cdk-lib';
import { CloudOrch, PolicyBundleSource } from 'cloudorch/cdk';
const [outdir, bundle, workDir] = process.argv.slice(2);
const app = new App({ outdir });
const stack = new Stack(app, 'Platform');
new CloudOrch(stack, 'C', { policyBundle: PolicyBundleSource.fromFile(bundle, { workDir }) });
app.synth();
`;

interface Resource {
  Type: string;
  Properties: { Description?: string; Handler?: string; Code?: { S3Key?: unknown } };
}

describe('the CDK construct from the package', () => {
  it('synthesizes every function from the prebuilt bundles it ships', { timeout: 120_000 }, async () => {
    const project = join(tmp, 'platform');
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'platform', private: true, type: 'module' }),
    );
    const install = await sh('npm', ['install', '--prefer-offline', '--no-save', tarball], {
      cwd: project,
      env: npmEnv,
    });
    expect(install.code, install.stderr).toBe(0);
    const pkg = join(project, 'node_modules', 'cloudorch');
    expect(existsSync(join(pkg, 'lambdas')), 'no Lambda sources shipped').toBe(false);
    // The optional peers, linked from this checkout rather than downloaded.
    for (const peer of ['aws-cdk-lib', 'constructs'])
      symlinkSync(join(ROOT, 'node_modules', peer), join(project, 'node_modules', peer), 'dir');
    writeFileSync(join(project, 'app.mjs'), APP);
    const out = join(project, 'cdk.out');
    const bundle = join(pkg, 'policies', 'prebuilt', 'bundle.tar.gz');
    const r = await sh(process.execPath, ['app.mjs', out, bundle, join(project, 'policy')], {
      cwd: project,
      env: { ...userEnv, CDK_DISABLE_CLI_TELEMETRY: 'true' },
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const template = JSON.parse(readFileSync(join(out, 'Platform.template.json'), 'utf8')) as {
      Resources: Record<string, Resource>;
    };
    const byDescription = new Map(
      Object.values(template.Resources)
        .filter((x) => x.Type === 'AWS::Lambda::Function')
        .map((x) => [x.Properties.Description, x]),
    );
    for (const spec of Object.values(FUNCTIONS)) {
      const fn = byDescription.get(spec.description);
      expect(fn, spec.description).toBeDefined();
      expect(fn?.Properties.Handler).toBe('index.handler');
      const key = String(fn?.Properties.Code?.S3Key);
      expect(key).toMatch(/^[0-9a-f]{64}\.zip$/);
      // The asset staged from the package's dist/functions/<key>/ (asset.<hash> in the output).
      const asset = join(out, `asset.${key.replace(/\.zip$/, '')}`);
      expect(existsSync(join(asset, 'index.mjs')), asset).toBe(true);
    }
  });
});
