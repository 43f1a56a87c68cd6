/**
 * Builds dist/ (the compiled CLI) before the suite when the sources changed since the last build,
 * once, so tests that spawn `bin/cloudorch.mjs` in parallel do not each rebuild it.
 */
import { ensureDist } from '../../scripts/build-dist.mjs';

export default async function setup(): Promise<void> {
  await ensureDist();
}
