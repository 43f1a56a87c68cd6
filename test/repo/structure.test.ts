/**
 * Size limits of the product code: no source file over 400 lines. (The function limit, 60 lines
 * unless a one-line comment says why, is biome's noExcessiveLinesPerFunction in biome.json, so the
 * lint step enforces it and a `biome-ignore` carries the why.)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const MAX_FILE_LINES = 400;
const SOURCE = /\.(ts|mts|js|mjs|rego|sh|css|html)$/;

function productFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n');
  return tracked.filter((f) => SOURCE.test(f) && !f.startsWith('test/'));
}

describe('product code size', () => {
  it(`has no source file over ${MAX_FILE_LINES} lines`, () => {
    const files = productFiles();
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((f) => ({ f, lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ f, lines }) => `${f}: ${lines}`);
    expect(over).toEqual([]);
  });
});
