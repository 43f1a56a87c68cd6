/** Reads manifests from files, folders (their .yaml/.yml/.json files, sorted) or standard input. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CloudClusterManifest,
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

export async function loadManifests(
  paths: readonly string[],
): Promise<{ manifests: CloudClusterManifest[]; issues: ManifestIssue[] }> {
  const manifests: CloudClusterManifest[] = [];
  const issues: ManifestIssue[] = [];
  for (const p of paths) {
    for (const file of await expand(p)) {
      const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
      const r = parseManifests(text, file === '-' ? '<stdin>' : file);
      if (r.ok) manifests.push(...r.manifests);
      else issues.push(...r.issues);
    }
  }
  return { manifests, issues };
}
