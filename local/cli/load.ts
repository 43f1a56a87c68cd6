/** Reads manifests from files, folders (their .yaml/.yml/.json files, sorted) or standard input. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  type CloudClusterManifest,
  duplicateIds,
  duplicateTargets,
  type ManifestIssue,
  parseManifests,
} from '../../lambdas/core/manifest.js';

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

/**
 * Every document of every file, validated; an id defined in two places (two documents, two files),
 * or a cluster named by two records, is an issue naming both, so one apply never writes twice.
 */
export async function loadManifests(
  paths: readonly string[],
): Promise<{ manifests: CloudClusterManifest[]; issues: ManifestIssue[] }> {
  const manifests: CloudClusterManifest[] = [];
  const issues: ManifestIssue[] = [];
  // A file named twice (`-f dir/ -f dir/a.yaml`) is read once, not reported as its own duplicate.
  const read = new Set<string>();
  for (const p of paths) {
    for (const file of await expand(p)) {
      const key = file === '-' ? '-' : resolve(file);
      if (read.has(key)) continue;
      read.add(key);
      const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
      const r = parseManifests(text, file === '-' ? '<stdin>' : file);
      if (r.ok) manifests.push(...r.manifests);
      else issues.push(...r.issues);
    }
  }
  issues.push(...duplicateIds(manifests), ...duplicateTargets(manifests));
  return { manifests, issues };
}
