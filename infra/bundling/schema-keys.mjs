/**
 * An esbuild plugin for the Lambda bundles: in the AWS SDK clients' schema modules
 * (`dist-es/schemas/schemas_<n>.js`), a computed key naming a string constant of the same module
 * (`{ [_hE]: 403 }`, with `const _hE = "httpError";`) becomes that string (`{ "httpError": 403 }`).
 * The object is the same, but esbuild counts a computed key as a possible side effect, so it kept
 * every operation's schema, with every shape it names, for a client whatever commands a function
 * sends: the EKS client's schemas loaded whole (about 40 KiB of a cold load) for the few operations a
 * function calls. With plain keys, the schemas of operations a bundle never sends are dropped.
 * Only a constant bound to a plain string literal is replaced, never `__proto__` (as a plain key it
 * would set the prototype), and a module without such keys is left to esbuild as it is.
 */
import { readFile } from 'node:fs/promises';

/** Matches the SDK's schema modules, in clients and nested clients alike (posix or windows paths). */
export const SCHEMA_MODULE = /[\\/]@aws-sdk[\\/].+[\\/]dist-es[\\/](?:.+[\\/])?schemas[\\/]schemas_\d+\.js$/;

/**
 * The module's text with its computed constant keys made plain; the number replaced beside it.
 * @param {string} text
 * @returns {{ text: string, replaced: number }}
 */
export function plainSchemaKeys(text) {
  const constants = new Map();
  for (const m of text.matchAll(/^const (_\w+) = ("(?:[^"\\\n]|\\.)*");$/gm)) {
    const value = JSON.parse(/** @type {string} */ (m[2]));
    if (value !== '__proto__') constants.set(m[1], /** @type {string} */ (m[2]));
  }
  let replaced = 0;
  const out = text.replace(/\[(_\w+)\]:/g, (whole, name) => {
    const literal = constants.get(name);
    if (literal === undefined) return whole;
    replaced++;
    return `${literal}:`;
  });
  return { text: out, replaced };
}

/** @type {import('esbuild').Plugin} */
export const schemaKeysPlugin = {
  name: 'cloudorch-sdk-schema-keys',
  setup(build) {
    build.onLoad({ filter: SCHEMA_MODULE }, async (args) => {
      const { text, replaced } = plainSchemaKeys(await readFile(args.path, 'utf8'));
      return replaced > 0 ? { contents: text, loader: 'js' } : undefined;
    });
  },
};
