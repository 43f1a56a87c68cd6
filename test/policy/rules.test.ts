/** Every rule on the compiled WASM bundle, through the engine the Lambdas use. */
import { beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../lambdas/policy/engine.js';
import { FileBundleSource } from '../../lambdas/policy/sources.js';
import { BUNDLE_PATH, CASES } from './support.js';

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

  it('returns exactly {allow, violations[{rule, message, severity}]}, errors deciding allow', () => {
    const denied = CASES.find((c) => c.name.startsWith('denied-by-policy'))!;
    const { bundleVersion, ...decision } = engine.evaluate(denied.input);
    expect(bundleVersion).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(Object.keys(decision).sort()).toEqual(['allow', 'violations']);
    for (const v of decision.violations) {
      expect(Object.keys(v).sort()).toEqual(['message', 'rule', 'severity']);
      expect(['error', 'warn']).toContain(v.severity);
    }
    expect(decision.allow).toBe(false);
    expect(decision.violations.some((v) => v.severity === 'error')).toBe(true);
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
