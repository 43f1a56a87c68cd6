/**
 * Durations as specs write them: a whole number and one unit, `30s`, `10m`, `2h`, `1d`. One unit
 * only, so a value reads the same to everyone (no `1h90m`); the parsed form is whole seconds.
 */

/** Seconds per unit. */
export const DURATION_UNITS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;
export type DurationUnit = keyof typeof DURATION_UNITS;

/** Nine digits at most: a bound far above any limit a field sets, below float imprecision. */
const DURATION = /^(\d{1,9})([smhd])$/;

/** Whole seconds, or undefined when `text` is not a duration. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * DURATION_UNITS[m[2] as DurationUnit];
}

/** Why `value` is not a duration of at most `maxSeconds`, or undefined when it is one. */
export function durationProblem(value: unknown, maxSeconds: number): string | undefined {
  const seconds = typeof value === 'string' ? parseDuration(value) : undefined;
  if (seconds === undefined)
    return 'must be a duration: a whole number and a unit s, m, h or d, like "30s", "10m", "2h", "1d"';
  if (seconds > maxSeconds) return `must be at most ${formatDuration(maxSeconds)}`;
  return undefined;
}

/** The largest unit that divides `seconds` exactly: 5400 is `90m`, 86400 is `1d`. */
export function formatDuration(seconds: number): string {
  for (const unit of ['d', 'h', 'm'] as const) {
    const size = DURATION_UNITS[unit];
    if (seconds > 0 && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
