/**
 * The OPA built-ins a policy may not call. The wasm SDK implements `yaml.*` in JavaScript with the
 * yaml library, its only use of it, and the policy function's bundle leaves that library out
 * (infra/bundling/function-bundling.mjs aliases it to a module that throws). The policy build leaves
 * these out of its capabilities, so no policy it builds calls one; the engine refuses a bundle built
 * elsewhere that does, in every mode, so that `cloudorch dev` and Lambda agree.
 */
import type { LoadedPolicy } from '@open-policy-agent/opa-wasm';

export const OMITTED_BUILTINS: readonly string[] = Object.freeze([
  'yaml.is_valid',
  'yaml.marshal',
  'yaml.unmarshal',
]);

interface PolicyExports {
  builtins(): number;
  opa_json_dump(addr: number): number;
}

/**
 * The built-ins a loaded policy calls, as its wasm module lists them (the `builtins` export, a JSON
 * object of name to id). Call before `setData`, which resets the module's heap.
 */
export function builtinsOf(policy: LoadedPolicy): string[] {
  const w = policy.wasmInstance;
  const exports = ('instance' in w ? w.instance : w).exports as unknown as PolicyExports;
  const addr = exports.opa_json_dump(exports.builtins());
  const bytes = new Uint8Array(policy.mem.buffer);
  let end = addr;
  while (bytes[end] !== 0) end++;
  return Object.keys(JSON.parse(new TextDecoder().decode(bytes.subarray(addr, end))) as object);
}
