/**
 * The CLI's own version: package.json's. A bundled build may inject it (esbuild
 * `--define:CLOUDORCH_VERSION='"x.y.z"'`); otherwise the nearest package.json named `cloudorch` above
 * this module is read, which holds from the checkout (local/cli/config/) and from an installed
 * package whose bundle lives in dist/ alike.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

declare const CLOUDORCH_VERSION: string | undefined;

const PACKAGE_NAME = 'cloudorch';

export class CliVersionError extends Error {
  override readonly name = 'CliVersionError';
}

function injected(): string | undefined {
  return typeof CLOUDORCH_VERSION === 'string' ? CLOUDORCH_VERSION : undefined;
}

/** Walks up from `from` to the first package.json named cloudorch and returns its version. */
export function packageVersion(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    let text: string | undefined;
    try {
      text = readFileSync(join(dir, 'package.json'), 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined) {
      const pkg = JSON.parse(text) as { name?: unknown; version?: unknown };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    }
    if (dirname(dir) === dir) break;
  }
  throw new CliVersionError(`no package.json named ${PACKAGE_NAME} above ${from}`);
}

let cached: string | undefined;
export function cliVersion(): string {
  cached ??= injected() ?? packageVersion(dirname(fileURLToPath(import.meta.url)));
  return cached;
}
