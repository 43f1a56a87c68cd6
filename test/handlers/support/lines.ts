/** Capturing the JSON lines a logger writes, for the tests that hold ours to Powertools'. */
import { afterEach, vi } from 'vitest';

/** The JSON lines written to stdout and stderr (and, with POWERTOOLS_DEV, Powertools' console) while `f` runs. */
export function captured(f: () => void): Record<string, unknown>[] {
  const lines: string[] = [];
  const take = (chunk: unknown) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(take);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(take);
  const con = vi.spyOn(console, 'log').mockImplementation(take);
  try {
    f();
  } finally {
    out.mockRestore();
    err.mockRestore();
    con.mockRestore();
  }
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** What may differ: the time, Powertools' constant `sampling_rate`, and where an error was thrown. */
export function comparable(line: Record<string, unknown>): Record<string, unknown> {
  const { timestamp: _t, sampling_rate: _s, ...rest } = line;
  const error = rest['error'];
  if (error && typeof error === 'object') {
    const { location: _l, ...e } = error as Record<string, unknown>;
    rest['error'] = e;
  }
  return rest;
}

/** The variables the loggers read. */
export const LOG_ENV_KEYS = [
  'POWERTOOLS_LOG_LEVEL',
  'AWS_LAMBDA_LOG_LEVEL',
  '_X_AMZN_TRACE_ID',
  'POWERTOOLS_METRICS_DISABLED',
  'POWERTOOLS_DEV',
] as const;

/** Puts them back after each test. */
export function restoringLogEnv(): void {
  const saved = Object.fromEntries(LOG_ENV_KEYS.map((k) => [k, process.env[k]]));
  afterEach(() => {
    for (const k of LOG_ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });
}
