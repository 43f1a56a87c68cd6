/**
 * The installed CLI resolves every package its bundle leaves as an import from `dependencies`, and
 * `dependencies` holds nothing else: build-only and test-only packages stay in devDependencies.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIST, ensureDist, ROOT } from '../../scripts/build-dist.mjs';

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

let externals: string[];
let pkg: { dependencies: Record<string, string>; peerDependencies?: Record<string, string> };

beforeAll(async () => {
  await ensureDist();
  externals = (JSON.parse(await readFile(join(DIST, 'inputs.json'), 'utf8')) as { externals: string[] })
    .externals;
  pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as typeof pkg;
}, 60_000);

describe('package dependencies', () => {
  it('are exactly the packages the compiled CLI imports', () => {
    const imported = [...new Set(externals.map(packageOf))].sort();
    expect(Object.keys(pkg.dependencies).sort()).toEqual(imported);
  });

  it('leave the CDK libraries to optional peers', () => {
    expect(Object.keys(pkg.peerDependencies ?? {}).sort()).toEqual(['aws-cdk-lib', 'constructs']);
  });
});
