/** Durations as rollout specs write them: one whole number and one unit. */
import { describe, expect, it } from 'vitest';
import { durationProblem, formatDuration, parseDuration } from '../../lambdas/core/duration.js';

describe('parseDuration', () => {
  it.each([
    ['0s', 0],
    ['30s', 30],
    ['10m', 600],
    ['2h', 7_200],
    ['1d', 86_400],
  ])('reads %s as %d seconds', (text, seconds) => expect(parseDuration(text)).toBe(seconds));

  it.each([
    ['', 'empty'],
    ['10', 'no unit'],
    ['1h30m', 'two units (one unit keeps a value unambiguous)'],
    ['1.5h', 'a fraction'],
    ['-1s', 'a sign'],
    ['10 m', 'a space'],
    ['10M', 'an upper-case unit'],
    ['1w', 'an unknown unit'],
    ['1234567890s', 'more than nine digits'],
  ])('refuses %j (%s)', (text) => expect(parseDuration(text)).toBeUndefined());
});

describe('durationProblem', () => {
  it('accepts up to the bound, inclusive', () => {
    expect(durationProblem('30d', 30 * 86_400)).toBeUndefined();
    expect(durationProblem('31d', 30 * 86_400)).toBe('must be at most 30d');
  });
  it('refuses what is not a string, saying the form', () => {
    expect(durationProblem(30, 60)).toMatch(/like "30s", "10m", "2h", "1d"/);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [45, '45s'],
    [5_400, '90m'],
    [7_200, '2h'],
    [2_592_000, '30d'],
  ])('writes %d seconds as %s', (seconds, text) => expect(formatDuration(seconds)).toBe(text));
});
