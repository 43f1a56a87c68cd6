/** Telemetry: each step's log context, isolated when steps run side by side. */
import { describe, expect, it } from 'vitest';
import { log, logger, withLogContext } from '../../lambdas/handlers/telemetry.js';

describe('log context', () => {
  it('gives each step its own logger, even when steps run side by side in one process', async () => {
    const seen: unknown[] = [];
    const step = (id: string) =>
      withLogContext({ step: 'observe', clusterId: id }, async () => {
        const mine = log();
        await new Promise((r) => setTimeout(r, 5));
        seen.push(mine);
        expect(log()).toBe(mine); // still the same logger after an await
        return mine;
      });
    const [a, b] = await Promise.all([step('a/x'), step('b/y')]);
    expect(a).not.toBe(b);
    expect(a).not.toBe(logger);
    expect(log()).toBe(logger);
    expect(seen).toHaveLength(2);
  });
});
