/**
 * JSON Schema (as the spec kit, lambdas/core/spec/build.ts, emits it) to the structural
 * openAPIV3Schema a CRD needs: one conversion for every kind the bridge serves, so each CRD is
 * generated from its spec schema the same way.
 */

export type Json = Record<string, unknown>;

/** Keywords a structural schema accepts as they are. */
const KEPT = new Set([
  'type',
  'description',
  'default',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'required',
  'format',
]);
/**
 * Keywords Kubernetes has no place for; the webhook runs the full schema, so nothing is lost there.
 * `readOnly` marks a readonly TypeScript type (build.ts, `readonly`), not an API-server rule.
 */
const DROPPED = new Set(['$schema', 'propertyNames', 'readOnly']);

export class SchemaConversionError extends Error {
  override readonly name = 'SchemaConversionError';
}

export function isJson(x: unknown): x is Json {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * JSON Schema (draft 2020-12, as the spec kit emits it) to an openAPIV3Schema Kubernetes accepts:
 * `const` becomes a one-value enum, `additionalProperties: false` is dropped (Kubernetes forbids it
 * beside `properties` and prunes unknown fields itself), a map keeps its value schema, and a node
 * without a type preserves unknown fields. Any other keyword fails generation rather than vanish.
 */
export function toStructural(schema: Json, path = 'spec'): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (KEPT.has(key)) out[key] = value;
    else if (DROPPED.has(key)) continue;
    else if (key === 'const') out['enum'] = [value];
    else if (key === 'properties' && isJson(value)) {
      out['properties'] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, toStructural(v as Json, `${path}.${k}`)]),
      );
    } else if (key === 'items' && isJson(value)) out['items'] = toStructural(value, `${path}[]`);
    else if (key === 'additionalProperties') {
      if (value === false) continue;
      if (isJson(value) && schema['properties'] === undefined) {
        out['additionalProperties'] = toStructural(value, `${path}.*`);
      } else
        throw new SchemaConversionError(
          `${path}: additionalProperties ${JSON.stringify(value)} has no structural form`,
        );
    } else throw new SchemaConversionError(`${path}: keyword ${key} has no structural form`);
  }
  if (out['type'] === undefined) out['x-kubernetes-preserve-unknown-fields'] = true;
  return out;
}
