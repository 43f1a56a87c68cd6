/** `cloudorch plan`'s policy lines: the verdict, the violations, then what the pipeline will hold for approval. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineEvaluator } from '../../lambdas/handlers/clients/policy.js';
import { FileBundleSource, PolicyEngine } from '../../lambdas/policy/index.js';
import { planCommand, policyLines } from '../../local/cli/commands/plan.js';
import type { Output } from '../../local/cli/format.js';
import type { Target } from '../../local/cli/target.js';
import { POLICY_DIR } from '../../policies/build.js';
import { BUNDLE_PATH, converged, example, PLAN_DEFAULTS, withSpec } from '../policy/support.js';

const ROOT = join(POLICY_DIR, '..');

const o: Output = { color: false, out: () => undefined, err: () => undefined };
const approval = {
  rule: 'production-replacement-approval',
  operation: 'replace node group ng-old',
  reason: 'cluster prod is production',
};

describe('plan: policy lines', () => {
  it('lists each approval after an allowed verdict', () => {
    expect(
      policyLines(o, {
        allow: true,
        degraded: false,
        violations: [{ rule: 'kubernetes-version', message: 'extended support', severity: 'warn' }],
        approvals: [approval],
      }),
    ).toEqual([
      '  policy: allowed',
      '    - [warn] kubernetes-version: extended support',
      '  requires approval: replace node group ng-old (production-replacement-approval): cluster prod is production',
    ]);
  });

  it('lists approvals under a denial too', () => {
    const lines = policyLines(o, {
      allow: false,
      degraded: false,
      violations: [{ rule: 'nodegroup-replacement', message: 'set the tag', severity: 'error' }],
      approvals: [approval],
    });
    expect(lines[0]).toBe('  policy: DENIED');
    expect(lines.at(-1)).toMatch(/^ {2}requires approval: replace node group ng-old/);
  });

  it('prints no approval line when none is needed', () => {
    expect(policyLines(o, { allow: true, degraded: false, violations: [], approvals: [] })).toEqual([
      '  policy: allowed',
    ]);
  });
});

describe('plan: a production node group replacement, judged by the real bundle', () => {
  it('prints the approval the replacement needs, and exits 2 (allowed changes)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudorch-plan-'));
    const prod = example('prod-tagged.yaml');
    const tags = { ...prod.spec.tags, 'allow-nodegroup-replacement': 'true' };
    const running = withSpec(prod, { tags });
    const file = join(dir, 'prod.yaml');
    // The same cluster with a bigger instance type: a new node group replaces the pool's group.
    const text = readFileSync(join(ROOT, 'examples/prod-tagged.yaml'), 'utf8')
      .replace('instanceType: m6i.xlarge', 'instanceType: m6i.2xlarge')
      .replace('    cost-center: "4711"', '    cost-center: "4711"\n    allow-nodegroup-replacement: "true"');
    writeFileSync(file, text);
    const engine = new PolicyEngine({ source: new FileBundleSource(BUNDLE_PATH) });
    const target = {
      store: { get: async () => undefined },
      provider: { observe: async () => converged(running) },
      defaults: PLAN_DEFAULTS,
      policy: async () => engineEvaluator(() => engine),
    } as unknown as Target;
    const lines: string[] = [];
    const code = await planCommand(target, { ...o, out: (l = '') => lines.push(l) }, [file]);
    expect(code).toBe(2);
    const out = lines.join('\n');
    expect(out).toMatch(/create node group \S+ for pool default \(m6i\.2xlarge/);
    // Warnings may stand between (the example's Kubernetes version leaves standard support on
    // 2026-12-02, and the policy then warns of the extended-support rate): the plan runs at today's date.
    expect(out).toMatch(
      /policy: allowed\n(?: {4}- \[warn\] .*\n)* {2}requires approval: replace node group \S+ \(production-replacement-approval\): cluster platform-prod is production \(tag environment=production\): replacing a node group drains and recreates its nodes$/,
    );
  });
});
