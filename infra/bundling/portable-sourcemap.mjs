/**
 * Rewrites a bundle's source map so that it does not depend on where the checkout lives: esbuild
 * writes `sources` relative to its temporary output folder, so two checkouts would give two asset
 * hashes for the same code. Each source becomes its path in the project (`lambdas/...`), or from
 * `node_modules/` on for dependencies (also when node_modules is a link to another folder).
 * Used by build-function.mjs for every map a function's build writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';

const MODULES = `${sep}node_modules${sep}`;

/** @param {string} mapFile @param {string} projectRoot */
export function makePortable(mapFile, projectRoot) {
  const portable = (/** @type {string} */ source) => {
    const absolute = resolve(dirname(mapFile), source);
    const inProject = relative(projectRoot, absolute);
    const at = absolute.indexOf(MODULES);
    // Outside the project only through a linked node_modules: keep the part from node_modules on.
    const path = inProject.startsWith('..') && at >= 0 ? absolute.slice(at + 1) : inProject;
    return path.split(sep).join('/');
  };
  const map = JSON.parse(readFileSync(mapFile, 'utf8'));
  map.sources = map.sources.map(portable);
  delete map.sourceRoot;
  writeFileSync(mapFile, JSON.stringify(map));
}
