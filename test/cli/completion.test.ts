/**
 * Shell completion through the real binary: the bash script loads in bash and completes commands,
 * subcommands, options, and CloudCluster and target names from a running `cloudorch dev` (a child
 * process); the zsh script parses in zsh (installed by scripts/setup.sh) and its helpers answer there.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Help } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionTree } from '../../local/cli/commands/completion.js';
import { buildProgram } from '../../local/cli/main.js';
import { CLI, type Dev, minimalEnv, ROOT, startDev } from './dev-child.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudorch-completion-'));
// `cloudorch` on PATH, as an installed CLI is: the completion runs the word the user typed.
const bin = join(dir, 'bin');
mkdirSync(bin);
writeFileSync(join(bin, 'cloudorch'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
chmodSync(join(bin, 'cloudorch'), 0o755);
const env = { ...minimalEnv(dir), PATH: `${bin}:${process.env.PATH ?? ''}` };

function run(
  file: string,
  args: string[],
  extra: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...env, ...extra }, cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** What bash's completion offers for a command line whose last word is being typed. */
async function complete(line: string[], extra: Record<string, string> = {}): Promise<string[]> {
  const words = line.map((w) => `'${w}'`).join(' ');
  const script = `source <(cloudorch completion bash) || exit 9
COMP_WORDS=(${words}); COMP_CWORD=${line.length - 1}
_cloudorch
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = await run('bash', ['-c', script], extra);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean).sort();
}

let dev: Dev;
beforeAll(async () => {
  dev = await startDev({ dir, env, args: ['--port', '0', '--sweep-interval', '5'] });
  const applied = await run('cloudorch', ['apply', '-f', join(ROOT, 'examples/dev-small.yaml')]);
  expect(applied.code, applied.stderr).toBe(0);
  const set = await run('cloudorch', [
    'config',
    'set-target',
    'prod',
    '--table',
    't',
    '--region',
    'eu-west-1',
  ]);
  expect(set.code, set.stderr).toBe(0);
}, 150_000);

afterAll(async () => {
  await dev?.stop();
});

describe('bash completion', () => {
  it('loads in bash and registers itself for cloudorch', async () => {
    const r = await run('bash', ['-c', 'source <(cloudorch completion bash) && complete -p cloudorch']);
    // -o default: bash completes file names where the script offers nothing.
    expect(r).toMatchObject({ code: 0, stdout: 'complete -o default -F _cloudorch cloudorch\n' });
  });

  it('completes commands, subcommands and options from the program', async () => {
    expect(await complete(['cloudorch', 'de'])).toEqual(['delete', 'deny', 'describe', 'dev']);
    expect(await complete(['cloudorch', 'config', 'u'])).toEqual(['use-target']);
    // Program options come before a subcommand's words, and after them too.
    expect(await complete(['cloudorch', '--region', 'eu-west-1', 'config', 'g'])).toEqual(['get-targets']);
    expect(await complete(['cloudorch', 'get', '--o'])).toEqual(['--output']);
    expect(await complete(['cloudorch', 'plan', '--ta'])).toEqual(['--table', '--target']);
    expect(await complete(['cloudorch', '--vers'])).toEqual(['--version']);
    // After an option that takes a value there is nothing to offer but what the value may be.
    expect(await complete(['cloudorch', '--region', ''])).toEqual([]);
  });

  it('completes CloudCluster names from the target, passing the target options on', async () => {
    expect(await complete(['cloudorch', 'get', ''])).toEqual(['dev-small']);
    expect(await complete(['cloudorch', 'describe', 'dev'])).toEqual(['dev-small']);
    expect(await complete(['cloudorch', 'sim', 'drift', ''])).toEqual(['dev-small']);
    expect(await complete(['cloudorch', '--target', 'dev', 'reconcile', ''])).toEqual(['dev-small']);
    // A target that cannot be reached completes nothing, and says nothing.
    expect(await complete(['cloudorch', '--target', 'prod', 'delete', ''])).toEqual([]);
  });

  it('completes file and folder names after the options that take a path', async () => {
    const files = join(dir, 'files');
    mkdirSync(join(files, 'policies-dir'), { recursive: true });
    writeFileSync(join(files, 'cluster.yaml'), '');
    const p = `${files}/`;
    const both = [`${p}cluster.yaml`, `${p}policies-dir`];
    expect(await complete(['cloudorch', 'apply', '-f', p])).toEqual(both);
    expect(await complete(['cloudorch', 'plan', '--file', `${p}c`])).toEqual([`${p}cluster.yaml`]);
    expect(await complete(['cloudorch', 'policy', 'test', '--policies', `${p}p`])).toEqual([
      `${p}policies-dir`,
    ]);
    const tree = completionTree(buildProgram());
    for (const flag of ['-f', '--file', '--policies', '--out', '--data-dir'])
      expect(
        tree.some((n) => n.valueOptions.includes(flag)),
        flag,
      ).toBe(true);
  });

  it('refuses a target name that is not one plain token, naming the rule', async () => {
    for (const name of ['bad name/x', '_x', 'a'.repeat(64)]) {
      const r = await run('cloudorch', [
        'config',
        'set-target',
        name,
        '--table',
        't',
        '--region',
        'eu-west-1',
      ]);
      expect({ name, code: r.code }).toEqual({ name, code: 1 });
      expect(r.stderr).toContain('starting with a letter or digit, at most 63 characters');
    }
    expect(await complete(['cloudorch', '--target', ''])).toEqual(['dev', 'prod']);
  });

  it('completes target names', async () => {
    expect(await complete(['cloudorch', '--target', ''])).toEqual(['dev', 'prod']);
    expect(await complete(['cloudorch', 'config', 'use-target', 'p'])).toEqual(['prod']);
  });
});

describe('__complete', () => {
  it('prints nothing and succeeds when there is no target to ask', async () => {
    const r = await run('cloudorch', ['__complete', 'clusters'], {
      CLOUDORCH_DEV_STATE: join(dir, 'none.json'),
    });
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('is not listed in help', async () => {
    const r = await run('cloudorch', ['--help']);
    expect(r.stdout).toContain('completion');
    expect(r.stdout).not.toContain('__complete');
  });
});

const zsh = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v zsh'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

describe('zsh completion', () => {
  it('is a compdef function over the same program tree', async () => {
    const r = await run('cloudorch', ['completion', 'zsh']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith('#compdef cloudorch\n')).toBe(true);
    expect(r.stdout).toContain('compdef _cloudorch cloudorch\n');
    expect(r.stdout).toContain('setopt localoptions ksharrays');
    const top = completionTree(buildProgram()).find((n) => n.path === '');
    expect(r.stdout).toContain(`    '') echo '${top?.subcommands.join(' ')}' ;;`);
  });

  // scripts/setup.sh installs zsh for this test; without it the test fails, it never skips.
  it('parses in zsh (zsh -n), and its helpers answer in zsh as the program says', async () => {
    expect(zsh, 'zsh is not installed (scripts/setup.sh installs it)').toBeTruthy();
    const file = join(dir, '_cloudorch');
    writeFileSync(file, (await run('cloudorch', ['completion', 'zsh'])).stdout);
    expect(await run(zsh ?? 'zsh', ['-n', file])).toMatchObject({ code: 0, stderr: '' });
    // Outside compinit, compdef is stubbed: what remains are the helpers the completer calls.
    const top = completionTree(buildProgram()).find((n) => n.path === '');
    const r = await run(zsh ?? 'zsh', [
      '-f',
      '-c',
      `compdef() { :; }; source ${file}; __cloudorch_subcommands ''`,
    ]);
    expect(r).toMatchObject({ code: 0, stderr: '', stdout: `${top?.subcommands.join(' ')}\n` });
  });

  it('completes paths with _files after the options that take one', async () => {
    const r = await run('cloudorch', ['completion', 'zsh']);
    expect(r.stdout).toContain('then _files; return; fi');
    const file = join(dir, '_cloudorch_files');
    writeFileSync(file, r.stdout);
    const asks = await run(zsh ?? 'zsh', [
      '-f',
      '-c',
      `compdef() { :; }; source ${file}; setopt ksharrays; __cloudorch_candidates 3 cloudorch apply -f x; __cloudorch_candidates 4 cloudorch policy test --policies ''`,
    ]);
    expect(asks).toMatchObject({ code: 0, stdout: '__cloudorch_files\n__cloudorch_files\n' });
  });

  it('rejects other shells', async () => {
    const r = await run('cloudorch', ['completion', 'fish']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Allowed choices are bash, zsh/);
  });
});

describe('the tree the scripts are generated from', () => {
  it('holds every visible command, and no hidden one', () => {
    const program = buildProgram();
    const tree = completionTree(program);
    const visible = new Help().visibleCommands(program).map((c) => c.name());
    expect(tree.find((n) => n.path === '')?.subcommands).toEqual([...visible].sort());
    expect(tree.some((n) => n.path.includes('__complete'))).toBe(false);
    expect(tree.find((n) => n.path === 'config')?.subcommands).toEqual([
      'current-target',
      'delete-target',
      'get-targets',
      'help',
      'set-target',
      'use-target',
    ]);
  });
});
