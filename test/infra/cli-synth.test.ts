/**
 * `cdk synth` with the pinned CLI, offline, the way a user runs it: the CLI must read the assembly
 * aws-cdk-lib writes, cdk-nag must pass (unacknowledged findings make it exit 1), and each bundled
 * function must stay within the size budget documented in docs/deploy.md.
 */

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { PARTITION_PLACEHOLDER } from '../../infra/lib/definition-partition.js';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { FUNCTIONS } from '../../lambdas/functions/catalog.js';
import { DEFAULT_DEFINITION_OPTIONS, definitionString } from '../../lambdas/statemachine/definition.js';

const run = promisify(execFile);

/**
 * Per function, its minified code: index.mjs and its chunks (the AWS SDK is bundled; see docs/deploy.md
 * "Bundle budget").
 */
const BUNDLE_BUDGET_BYTES = 1.5 * 1024 * 1024;

type Resource = { Type: string; Properties: Record<string, unknown> };
let out: string;
let template: { Resources: Record<string, Resource> };
let exit: { code: number; stderr: string };

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'cloudorch-cdk-out-'));
  const cdk = join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk');
  try {
    const r = await run(cdk, ['synth', '-q', '--no-notices', '--output', out], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    });
    exit = { code: 0, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    exit = { code: err.code ?? 1, stderr: err.stderr ?? String(e) };
  }
  if (exit.code === 0) template = JSON.parse(readFileSync(join(out, 'CloudOrch.template.json'), 'utf8'));
}, 180_000);

describe('cdk synth (pinned CLI)', () => {
  it('exits 0: the CLI reads the assembly and cdk-nag has no unacknowledged finding', () => {
    expect(exit.stderr).not.toMatch(/schema version mismatch/i);
    expect(exit.code, exit.stderr.slice(-4000)).toBe(0);
  });

  it('is the 2.x CLI the lock pins (never the stray 3.0.0)', () => {
    const pkg = JSON.parse(
      readFileSync(join(PROJECT_ROOT, 'node_modules', 'aws-cdk', 'package.json'), 'utf8'),
    );
    expect(pkg.version).toMatch(/^2\./);
  });

  it('deploys the definition string the local runner executes', () => {
    const sm = Object.values(template.Resources).find((r) => r.Type === 'AWS::StepFunctions::StateMachine');
    // The approval callback's partition is left to CloudFormation (infra/lib/definition-partition.ts).
    expect(String(sm?.Properties['DefinitionString']).replaceAll(`\${${PARTITION_PLACEHOLDER}}`, 'aws')).toBe(
      definitionString(DEFAULT_DEFINITION_OPTIONS),
    );
  });

  it(`keeps every function bundle under ${BUNDLE_BUDGET_BYTES} bytes`, () => {
    const rows: string[] = [];
    for (const [id, r] of Object.entries(template.Resources)) {
      if (r.Type !== 'AWS::Lambda::Function') continue;
      const description = r.Properties['Description'] as string | undefined;
      const key = Object.entries(FUNCTIONS).find(([, f]) => f.description === description)?.[0];
      if (!key) continue; // CDK's own deployment handler
      const zip = (r.Properties['Code'] as { S3Key: string }).S3Key;
      const asset = join(out, `asset.${zip.replace(/\.zip$/, '')}`);
      const code = readdirSync(asset)
        .filter((f) => f.endsWith('.mjs'))
        .map((f) => readFileSync(join(asset, f)));
      const size = code.reduce((n, b) => n + b.length, 0);
      const gz = code.reduce((n, b) => n + gzipSync(b).length, 0);
      rows.push(
        `${key.padEnd(14)} ${(size / 1024).toFixed(0).padStart(6)} KiB  gzip ${(gz / 1024).toFixed(0).padStart(5)} KiB  (${id})`,
      );
      expect(size, key).toBeLessThan(BUNDLE_BUDGET_BYTES);
    }
    expect(rows).toHaveLength(Object.keys(FUNCTIONS).length);
    console.log(`bundle sizes (budget ${BUNDLE_BUDGET_BYTES / 1024} KiB):\n${rows.sort().join('\n')}`);
  });
});
