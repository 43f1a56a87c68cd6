/**
 * Reads an `opa build -t wasm` bundle (.tar.gz): the compiled policy `/policy.wasm`, the merged data
 * document `/data.json` and the `/.manifest`. A tiny tar reader, so no dependency is needed; every
 * malformed input raises {@link PolicyBundleError}.
 */
import { gunzipSync } from 'node:zlib';
import { PolicyBundleError } from './errors.js';

export interface PolicyBundle {
  readonly wasm: Uint8Array;
  /** The data document the policy reads (`data.allowlists`, `data.settings`); passed to `setData`. */
  readonly data: Record<string, unknown>;
  /** `--revision` given to `opa build`, if any. */
  readonly revision: string | undefined;
}

const BLOCK = 512;

function text(block: Uint8Array, offset: number, length: number): string {
  const raw = block.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return Buffer.from(end < 0 ? raw : raw.subarray(0, end)).toString('utf8');
}

function octal(block: Uint8Array, offset: number, length: number, field: string): number {
  const s = text(block, offset, length).trim();
  if (!/^[0-7]+$/.test(s)) throw new PolicyBundleError(`bundle is not a valid tar archive (bad ${field})`);
  return Number.parseInt(s, 8);
}

/** Header checksum: the byte sum with the checksum field itself counted as spaces. */
function checksumOk(header: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
  return sum === octal(header, 148, 8, 'checksum');
}

/** Regular files of a tar archive by path (leading `/` removed). */
export function readTar(tar: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  let pos = 0;
  while (pos + BLOCK <= tar.length) {
    const header = tar.subarray(pos, pos + BLOCK);
    if (header.every((b) => b === 0)) return files; // end-of-archive marker
    if (!checksumOk(header)) throw new PolicyBundleError('bundle is not a valid tar archive (checksum)');
    const size = octal(header, 124, 12, 'size');
    const type = String.fromCharCode(header[156] ?? 0);
    const prefix = text(header, 345, 155);
    const name = (prefix ? `${prefix}/` : '') + text(header, 0, 100);
    const start = pos + BLOCK;
    if (start + size > tar.length) throw new PolicyBundleError(`bundle is truncated inside ${name}`);
    if (type === '0' || type === '\0') files.set(name.replace(/^\/+/, ''), tar.subarray(start, start + size));
    pos = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  throw new PolicyBundleError('bundle is not a valid tar archive (no end marker)');
}

function json(bytes: Uint8Array, name: string): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (cause) {
    throw new PolicyBundleError(`bundle ${name} is not valid JSON`, { cause });
  }
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

export function parseBundle(bytes: Uint8Array): PolicyBundle {
  let tar: Uint8Array;
  try {
    tar = gunzipSync(bytes);
  } catch (cause) {
    throw new PolicyBundleError('bundle is not gzip data', { cause });
  }
  const files = readTar(tar);
  const wasm = files.get('policy.wasm');
  if (!wasm || wasm.length === 0)
    throw new PolicyBundleError('bundle has no /policy.wasm (build with -t wasm)');
  const dataBytes = files.get('data.json');
  if (!dataBytes) throw new PolicyBundleError('bundle has no /data.json');
  const data = json(dataBytes, '/data.json');
  if (!isRecord(data)) throw new PolicyBundleError('bundle /data.json is not an object');
  const manifestBytes = files.get('.manifest');
  const manifest = manifestBytes ? json(manifestBytes, '/.manifest') : {};
  const revision =
    isRecord(manifest) && typeof manifest.revision === 'string' ? manifest.revision : undefined;
  return { wasm, data, revision };
}
