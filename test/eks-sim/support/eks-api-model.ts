/**
 * AWS's published EKS API model (botocore's service-2.json, installed with moto by scripts/setup.sh), and
 * what the wire-fidelity test needs of it: a REST-JSON request serialized from an operation's input
 * members, and a checker of a JSON value against a shape (member names, types, required members, enums).
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { MOTO_ENV } from '../../provider/support/moto.js';

export interface ShapeRef {
  readonly shape: string;
  readonly location?: string;
  readonly locationName?: string;
}

export interface Shape {
  readonly type: string;
  readonly members?: Readonly<Record<string, ShapeRef>>;
  readonly required?: readonly string[];
  readonly member?: ShapeRef;
  readonly key?: ShapeRef;
  readonly value?: ShapeRef;
  readonly enum?: readonly string[];
  readonly timestampFormat?: string;
}

export interface Operation {
  readonly http: { readonly method: string; readonly requestUri: string };
  readonly input?: ShapeRef;
  readonly output?: ShapeRef;
}

export interface ServiceModel {
  readonly operations: Readonly<Record<string, Operation>>;
  readonly shapes: Readonly<Record<string, Shape>>;
}

/** Loads the model through the moto venv's python; throws (the suite fails) when it cannot. */
export function loadEksModel(env: Readonly<Record<string, string | undefined>> = process.env): ServiceModel {
  const bin = env[MOTO_ENV];
  if (!bin)
    throw new Error(`${MOTO_ENV} is not set: source scripts/setup.sh, which installs botocore with moto`);
  const script =
    'import botocore.loaders, json, sys; json.dump(botocore.loaders.Loader().load_service_model("eks", "service-2"), sys.stdout)';
  const text = execFileSync(join(dirname(bin), 'python'), ['-c', script], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(text) as ServiceModel;
}

export interface WireRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body?: Record<string, unknown>;
}

/** Serializes an operation's input (model member names) as REST-JSON: URI labels, query string, body. */
export function serialize(
  model: ServiceModel,
  op: string,
  input: Readonly<Record<string, unknown>>,
): WireRequest {
  const o = model.operations[op];
  if (!o) throw new Error(`the model has no operation ${op}`);
  const shape = o.input ? model.shapes[o.input.shape] : undefined;
  const members = shape?.members ?? {};
  let path = o.http.requestUri;
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    const ref = members[name];
    if (!ref) throw new Error(`${op} has no input member ${name}`);
    const wireName = ref.locationName ?? name;
    if (ref.location === 'uri') path = path.replace(`{${wireName}}`, encodeURIComponent(String(value)));
    else if (ref.location === 'querystring') {
      for (const v of Array.isArray(value) ? value : [value]) query.append(wireName, String(v));
    } else body[wireName] = value;
  }
  return { method: o.http.method, path, query, ...(Object.keys(body).length > 0 ? { body } : {}) };
}

/** Every way `value` departs from `shapeName`, each naming its path. */
export function checkShape(
  model: ServiceModel,
  shapeName: string,
  value: unknown,
  path: string,
  /** `topLevel`: a response body (URI, query and header members are elsewhere); `request`: an input keyed by member names. */
  opts: { readonly topLevel?: boolean; readonly request?: boolean } = {},
): string[] {
  const shape = model.shapes[shapeName];
  if (!shape) return [`${path}: the model has no shape ${shapeName}`];
  const problems: string[] = [];
  const fail = (what: string) => problems.push(`${path}: ${what} (shape ${shapeName})`);
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  switch (shape.type) {
    case 'structure': {
      if (!isObject(value)) return [`${path}: expected a structure, got ${JSON.stringify(value)}`];
      // At the top level members bound to the URI, query or headers are not in the JSON body.
      const byWire = new Map<string, [string, ShapeRef]>();
      for (const [name, ref] of Object.entries(shape.members ?? {})) {
        if (opts.topLevel && ref.location !== undefined) continue;
        byWire.set(opts.request ? name : (ref.locationName ?? name), [name, ref]);
      }
      for (const [k, v] of Object.entries(value)) {
        const m = byWire.get(k);
        if (!m) fail(`member ${k} is not in the model`);
        else problems.push(...checkShape(model, m[1].shape, v, `${path}.${k}`));
      }
      for (const req of shape.required ?? []) {
        const ref = shape.members?.[req];
        if (opts.topLevel && ref?.location !== undefined) continue;
        if (value[opts.request ? req : (ref?.locationName ?? req)] === undefined)
          fail(`required member ${req} is missing`);
      }
      break;
    }
    case 'list':
      if (!Array.isArray(value)) return [`${path}: expected a list, got ${JSON.stringify(value)}`];
      value.forEach((v, i) => {
        problems.push(...checkShape(model, shape.member?.shape ?? '', v, `${path}[${i}]`));
      });
      break;
    case 'map':
      if (!isObject(value)) return [`${path}: expected a map, got ${JSON.stringify(value)}`];
      for (const [k, v] of Object.entries(value)) {
        problems.push(...checkShape(model, shape.key?.shape ?? '', k, `${path} key ${k}`));
        problems.push(...checkShape(model, shape.value?.shape ?? '', v, `${path}[${k}]`));
      }
      break;
    case 'string':
      if (typeof value !== 'string') fail(`expected a string, got ${JSON.stringify(value)}`);
      else if (shape.enum && !shape.enum.includes(value))
        fail(`${value} is not one of ${shape.enum.join(', ')}`);
      break;
    case 'integer':
    case 'long':
      if (!Number.isInteger(value)) fail(`expected an integer, got ${JSON.stringify(value)}`);
      break;
    case 'float':
    case 'double':
      if (typeof value !== 'number') fail(`expected a number, got ${JSON.stringify(value)}`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') fail(`expected a boolean, got ${JSON.stringify(value)}`);
      break;
    case 'timestamp':
      // REST-JSON timestamps are epoch seconds unless the shape names another format.
      if (
        (shape.timestampFormat ?? 'unixTimestamp') === 'unixTimestamp'
          ? typeof value !== 'number'
          : typeof value !== 'string'
      )
        fail(`expected a timestamp (epoch seconds), got ${JSON.stringify(value)}`);
      break;
    default:
      fail(`type ${shape.type} is not checked`);
  }
  return problems;
}

/** A simulator route pattern as the model writes URIs: `['clusters', ':name']` -> `/clusters/{name}`. */
export const uriOf = (pattern: readonly string[]): string =>
  `/${pattern.map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p)).join('/')}`;
