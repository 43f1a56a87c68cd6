/**
 * The version of the CloudOrch package this construct belongs to: the `version` of the nearest
 * `package.json` named `cloudorch` above this module, so it holds from the sources and from a
 * compiled copy alike. The stack tags its table with it, where `cloudorch version` reads it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InternalError } from '../../lambdas/core/errors.js';

/** Tag on the desired-state table naming the package version that deployed it. */
export const VERSION_TAG = 'cloudorch.io/version';
const PACKAGE_NAME = 'cloudorch';

export function packageVersion(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    }
    if (dirname(dir) === dir) throw new InternalError(`no ${PACKAGE_NAME} package.json above ${from}`);
  }
}
