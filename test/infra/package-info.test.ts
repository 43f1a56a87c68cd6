/**
 * The construct finds its package by the package.json named `cloudorch` above it, at any depth, so
 * a compiled or bundled copy (e.g. under dist/) still finds the function sources and the version.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, packageVersion } from '../../infra/lib/package-info.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('package info', () => {
  it('is the repository root and its package.json version in a checkout', () => {
    expect(PACKAGE_ROOT).toBe(REPO);
    expect(packageVersion()).toBe(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);
  });

  it('walks up past folders without a package.json and past other packages', () => {
    const root = mkdtempSync(join(tmpdir(), 'cloudorch-pkg-'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'cloudorch', version: '9.8.7' }));
    const nested = join(root, 'dist', 'infra', 'lib');
    mkdirSync(nested, { recursive: true });
    writeFileSync(join(root, 'dist', 'package.json'), JSON.stringify({ type: 'module' }));
    expect(packageVersion(nested)).toBe('9.8.7');
  });
});
