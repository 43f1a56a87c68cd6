/** Types of infra/bundling/schema-keys.mjs for the TypeScript that imports it (the tests). */
import type { Plugin } from 'esbuild';

export declare const SCHEMA_MODULE: RegExp;
export declare function plainSchemaKeys(text: string): { text: string; replaced: number };
export declare const schemaKeysPlugin: Plugin;
