/**
 * Where the CloudOrch package is and which version it is: the nearest `package.json` named
 * `cloudorch` above this module, so both hold from the sources and from a compiled or bundled copy
 * at any depth. Synthesis bundles the functions from the package's `lambdas/` sources; the stack
 * tags its table with the version, where `cloudorch version` reads it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InternalError } from '../../lambdas/core/errors.js';

/** Tag on the desired-state table naming the package version that deployed it. */
export const VERSION_TAG = 'cloudorch.io/version';
const PACKAGE_NAME = 'cloudorch';

interface Manifest {
  readonly dir: string;
  readonly version: string;
}

function findPackage(from: string): Manifest {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return { dir, version: pkg.version };
    }
    if (dirname(dir) === dir) throw new InternalError(`no ${PACKAGE_NAME} package.json above ${from}`);
  }
}

const HERE = dirname(fileURLToPath(import.meta.url));

/** The folder of the CloudOrch package (the repository root in a checkout). */
export const PACKAGE_ROOT = findPackage(HERE).dir;

/** The `version` of the CloudOrch package. */
export function packageVersion(from: string = HERE): string {
  return findPackage(from).version;
}
