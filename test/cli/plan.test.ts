import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const cli = new URL('../../bin/cloudorch.mjs', import.meta.url).pathname;

async function cloudorch(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [cli, ...args], { env: { ...process.env, NO_COLOR: '1' } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('cloudorch plan', () => {
  it('previews the examples and exits 2 because there are changes', async () => {
    const r = await cloudorch('plan', '-f', new URL('../../examples', import.meta.url).pathname);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /team-payments\/dev-small .*\n {2}1\. create cluster payments-dev \(1\.34\) in us-east-1/,
    );
    expect(r.stdout).toMatch(/estimated cost: \$133\.74\/month/);
  });

  it('exits 1 and names file, document and field for a bad spec', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudorch-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'apiVersion: compute.cloudorch.io/v1\nkind: CloudCluster\nmetadata: {name: x}\nspec: {provider: gcp}\n',
    );
    const r = await cloudorch('plan', '-f', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}#1: spec.provider: provider must be "aws"`);
    expect(r.stdout).toBe('');
  });
});
