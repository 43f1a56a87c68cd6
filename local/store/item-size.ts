/**
 * Item size by DynamoDB's published sizing rules (names and strings in UTF-8 bytes, numbers about one
 * byte per two significant digits plus one, 3 bytes per map or list plus 1 per element). A stream
 * record's SizeBytes is keys + new image + old image; test/store/stream-shape.test.ts checks it equals
 * DynamoDB Local's. Sets and binary are sized by the same rules but not covered by that test.
 */
import type { AttributeValue } from 'aws-lambda';

export function itemSizeBytes(image: Record<string, AttributeValue> | undefined): number {
  if (!image) return 0;
  let size = 0;
  for (const [name, value] of Object.entries(image)) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

function numberSize(n: string): number {
  const digits = n
    .replace(/^-/, '')
    .replace(/e.*$/i, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return Buffer.byteLength(v.S);
  if (v.N !== undefined) return numberSize(v.N);
  if (v.B !== undefined) return Buffer.from(v.B, 'base64').length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS) return v.SS.reduce((n, s) => n + Buffer.byteLength(s), 0);
  if (v.NS) return v.NS.reduce((n, s) => n + numberSize(s), 0);
  if (v.BS) return v.BS.reduce((n, b) => n + Buffer.from(b, 'base64').length, 0);
  if (v.L) return 3 + v.L.reduce((n, e) => n + 1 + valueSize(e), 0);
  if (v.M)
    return 3 + Object.entries(v.M).reduce((n, [k, e]) => n + 1 + Buffer.byteLength(k) + valueSize(e), 0);
  return 0;
}
