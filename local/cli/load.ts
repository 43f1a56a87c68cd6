/**
 * Reads manifests from files, folders (their .yaml/.yml/.json files, sorted) or standard input:
 * CloudClusters, and CloudRollouts beside them.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  type CloudClusterManifest,
  duplicateIds,
  duplicateTargets,
  type ManifestIssue,
  parseManifests,
} from '../../lambdas/core/manifest.js';
import { type SourcedRollout, splitRollouts } from './load-rollouts.js';

export type { SourcedRollout };

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function expand(path: string): Promise<string[]> {
  if (path === '-') return ['-'];
  const s = await stat(path);
  if (!s.isDirectory()) return [path];
  const names = (await readdir(path)).filter((n) => MANIFEST_FILE.test(n)).sort();
  return names.map((n) => join(path, n));
}

/** A rollout id defined by two documents, naming both. */
function duplicateRollouts(rollouts: readonly SourcedRollout[]): ManifestIssue[] {
  const first = new Map<string, string>();
  const issues: ManifestIssue[] = [];
  for (const { rollout, source } of rollouts) {
    const earlier = first.get(rollout.id);
    if (earlier === undefined) first.set(rollout.id, source);
    else
      issues.push({
        source,
        field: 'metadata.name',
        message: `${source}: metadata.name: cloudrollout ${rollout.id} is defined twice (first in ${earlier})`,
      });
  }
  return issues;
}

/**
 * Every document of every file, validated; an id defined in two places (two documents, two files),
 * or a cluster named by two records, is an issue naming both, so one apply never writes twice.
 */
export async function loadManifests(paths: readonly string[]): Promise<{
  manifests: CloudClusterManifest[];
  rollouts: SourcedRollout[];
  issues: ManifestIssue[];
}> {
  const manifests: CloudClusterManifest[] = [];
  const rollouts: SourcedRollout[] = [];
  const issues: ManifestIssue[] = [];
  // A file named twice (`-f dir/ -f dir/a.yaml`) is read once, not reported as its own duplicate.
  const read = new Set<string>();
  for (const p of paths) {
    for (const file of await expand(p)) {
      const key = file === '-' ? '-' : resolve(file);
      if (read.has(key)) continue;
      read.add(key);
      const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
      const name = file === '-' ? '<stdin>' : file;
      const split = splitRollouts(text, name);
      if (split) {
        manifests.push(...split.manifests);
        rollouts.push(...split.rollouts);
        issues.push(...split.issues);
        continue;
      }
      const r = parseManifests(text, name);
      if (r.ok) manifests.push(...r.manifests);
      else issues.push(...r.issues);
    }
  }
  issues.push(...duplicateIds(manifests), ...duplicateTargets(manifests), ...duplicateRollouts(rollouts));
  return { manifests, rollouts, issues };
}
