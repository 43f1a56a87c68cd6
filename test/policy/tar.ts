/** A minimal ustar writer, to hand-craft bundles that `opa build` would never produce. */
import { gzipSync } from 'node:zlib';

function header(name: string, size: number): Uint8Array {
  const h = new Uint8Array(512);
  const put = (s: string, offset: number) => h.set(Buffer.from(s, 'utf8'), offset);
  put(name, 0);
  put('0000644\0', 100);
  put('0000000\0', 108);
  put('0000000\0', 116);
  put(`${size.toString(8).padStart(11, '0')}\0`, 124);
  put('00000000000\0', 136);
  put('        ', 148);
  put('0', 156);
  put('ustar\0', 257);
  put('00', 263);
  const sum = h.reduce((a, b) => a + b, 0);
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

export function tarGz(files: Record<string, Uint8Array | string>): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, content] of Object.entries(files)) {
    const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    parts.push(header(name, body.length), body, new Uint8Array((512 - (body.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  return gzipSync(Buffer.concat(parts));
}
