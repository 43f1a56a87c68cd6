/** Types of infra/bundling/function-bundling.mjs for the TypeScript that imports it (the construct). */
import type { BuildOptions } from 'esbuild';

export declare const FUNCTION_BUNDLING: {
  readonly minify: true;
  readonly sourceMap: true;
  readonly sourcesContent: false;
  readonly target: 'node24';
  readonly format: 'esm';
  readonly mainFields: readonly string[];
  readonly externalModules: readonly string[];
  readonly banner: string;
  readonly logLevel: 'error';
  readonly alias: Readonly<Record<string, string>>;
};
export declare const BUILTIN_SHIMS: Readonly<Record<string, string>>;
export declare const LAMBDA_REPLACEMENTS: Readonly<Record<string, string>>;
export declare const FUNCTION_OUTFILE: 'index.mjs';
export declare const BUILD_FUNCTION: 'infra/bundling/build-function.mjs';
export declare function esbuildOptions(projectRoot: string, entry: string, outdir: string): BuildOptions;
