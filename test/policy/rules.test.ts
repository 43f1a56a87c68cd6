/** Every rule on the compiled WASM bundle, through the engine the Lambdas use. */
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../lambdas/policy/engine.js';
import { FileBundleSource } from '../../lambdas/policy/sources.js';
import { buildPolicyBundle, findOpa, POLICY_DIR } from '../../policies/build.js';
import {
  BUNDLE_PATH,
  CASES,
  deletingProduction,
  inputFor,
  multiWithGpu,
  upgradingWithErrorInsight,
  withPool,
} from './support.js';

const engine = new PolicyEngine({ source: new FileBundleSource(BUNDLE_PATH) });

beforeAll(async () => {
  await engine.ready();
  expect(engine.health()).toMatchObject({ status: 'ok' });
});

describe('policy rules on the WASM bundle', () => {
  it.each(CASES)('$name', (c) => {
    const d = engine.evaluate(c.input);
    expect(d.allow).toBe(c.allow);
    expect([...new Set(d.violations.map((v) => v.rule))].sort()).toEqual([...c.rules].sort());
    if (c.message) expect(d.violations.map((v) => v.message).join('\n')).toContain(c.message);
  });

  it('returns exactly {allow, violations[{rule, message, severity}], approvals}, errors deciding allow', () => {
    const denied = CASES.find((c) => c.name.startsWith('denied-by-policy'))!;
    const { bundleVersion, ...decision } = engine.evaluate(denied.input);
    expect(bundleVersion).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(Object.keys(decision).sort()).toEqual(['allow', 'approvals', 'violations']);
    for (const v of decision.violations) {
      expect(Object.keys(v).sort()).toEqual(['message', 'rule', 'severity']);
      expect(['error', 'warn']).toContain(v.severity);
    }
    expect(decision.allow).toBe(false);
    expect(decision.violations.some((v) => v.severity === 'error')).toBe(true);
  });

  it('asks for approval to delete a production cluster, from its first node group on, and allows it', () => {
    expect(deletingProduction.plan.map((op) => op.kind)).toContain('DeleteNodegroup');
    const { bundleVersion: _v, ...d } = engine.evaluate(deletingProduction);
    expect(d).toEqual({
      allow: true,
      violations: [],
      approvals: [
        {
          rule: 'production-deletion-approval',
          operation: 'delete cluster platform-prod',
          reason:
            'cluster platform-prod is production (tag environment=production): deleting it destroys it and everything running on it',
        },
      ],
    });
  });

  it('lets warnings through: an allowed decision can carry warn violations only', () => {
    const warned = CASES.filter((c) => c.allow && c.rules.length > 0);
    expect(warned.length).toBeGreaterThan(0);
    for (const c of warned) {
      const d = engine.evaluate(c.input);
      expect(d.allow).toBe(true);
      expect(d.violations.every((v) => v.severity === 'warn')).toBe(true);
    }
  });
});

describe('a customised bundle on WASM: waivers, GPU taint required, upgrade readiness enforced', () => {
  const waivers = [
    {
      rule: 'cost-threshold',
      cluster: 'research/gpu-sandbox',
      reason: 'GPU trial, OPS-1',
      expires: '2099-01-01',
    },
    { rule: 'required-tags', cluster: 'research/gpu-sandbox', reason: '', expires: '2099-01-01' },
    { rule: 'node-count-limit', cluster: 'research/gpu-sandbox', reason: 'old trial', expires: '2026-11-01' },
  ];
  let dir: string;
  let waived: PolicyEngine;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cloudorch-waivers-'));
    // Build output and the packaged bundle a pack leaves in prebuilt/ are not sources.
    const outputs = ['build', 'prebuilt'].map((d) => join(POLICY_DIR, d));
    const source = (s: string) => outputs.every((o) => s !== o && !s.startsWith(o + sep));
    await cp(POLICY_DIR, dir, { recursive: true, filter: source });
    const settings = JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8')) as {
      settings: Record<string, unknown>;
    };
    settings.settings.waivers = waivers;
    settings.settings.gpuTaint = { required: true };
    settings.settings.upgradeReadiness = { enforce: true };
    await writeFile(join(dir, 'settings.json'), JSON.stringify(settings));
    const { bundlePath } = await buildPolicyBundle({ policiesDir: dir, outDir: join(dir, 'build') });
    waived = new PolicyEngine({ source: new FileBundleSource(bundlePath) });
    await waived.ready();
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('downgrades a waived error, ignores a waiver without reason and reports an expired one', async () => {
    const input = CASES.find((c) => c.name.startsWith('denied-by-policy'))!.input;
    const { bundleVersion: _v, ...d } = waived.evaluate(input);
    expect(d.allow).toBe(false);
    const byRule = (rule: string) => d.violations.filter((v) => v.rule === rule);
    expect(byRule('cost-threshold')).toEqual([
      {
        rule: 'cost-threshold',
        severity: 'warn',
        message:
          'estimated monthly cost $15432.20 exceeds the limit of $5000.00 (waived until 2099-01-01: GPU trial, OPS-1)',
      },
    ]);
    expect(byRule('required-tags').map((v) => v.severity)).toEqual(['error']);
    expect(byRule('node-count-limit').map((v) => v.severity)).toEqual(['error']);
    expect(byRule('waiver').map((v) => v.message)).toEqual([
      'waiver for rule node-count-limit expired on 2026-11-01',
      expect.stringMatching(/^waiver for rule required-tags is ignored: it needs a non-blank reason/),
    ]);
    // And the same under opa eval: the waiver path formats messages in wasm (JS) and Go alike.
    const args = [
      'eval',
      '-f',
      'json',
      '--stdin-input',
      '--ignore',
      '*_test.rego',
      '--ignore',
      'build',
      '-d',
      '.',
    ];
    const out = execFileSync(findOpa(), [...args, 'data.cloudorch.decision'], {
      cwd: dir,
      input: JSON.stringify(input),
    });
    expect(d).toEqual(JSON.parse(String(out)).result[0].expressions[0].value);
  });

  it('requires a NoSchedule taint on GPU pools when settings say so', () => {
    const untainted = waived.evaluate(inputFor(multiWithGpu));
    expect(untainted.allow).toBe(false);
    expect(untainted.violations).toEqual([
      {
        rule: 'gpu-taint',
        severity: 'error',
        message:
          'pool gpu runs GPU instance type g4dn.xlarge but has no taint with effect NO_SCHEDULE; add one (e.g. {key: nvidia.com/gpu, effect: NO_SCHEDULE}) so only GPU workloads are scheduled there',
      },
    ]);
    const taint = { key: 'nvidia.com/gpu', effect: 'NO_SCHEDULE' as const };
    expect(waived.evaluate(inputFor(withPool(multiWithGpu, { taints: [taint] }, 'gpu'))).allow).toBe(true);
  });

  it('denies a control-plane step past an ERROR insight when the platform enforces the gate, whatever the spec says', () => {
    expect(upgradingWithErrorInsight.cluster.upgrade?.readiness).toBe('warn');
    expect(upgradingWithErrorInsight.plan.map((op) => op.kind)).toContain('UpdateClusterVersion');
    const d = waived.evaluate(upgradingWithErrorInsight);
    expect(d.allow).toBe(false);
    expect(d.violations).toEqual([
      {
        rule: 'upgrade-readiness',
        severity: 'error',
        message:
          'the plan upgrades the control plane to 1.34 while EKS upgrade insights for it are in ERROR or UNKNOWN: Kubernetes API deprecations and removals (Deprecated API usage detected); fix what they report (aws eks describe-insight), the platform enforces the readiness gate whatever spec.upgrade.readiness says',
      },
    ]);
  });
});
