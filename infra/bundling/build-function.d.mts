/** Types of infra/bundling/build-function.mjs for the TypeScript that imports it (tests). */
export declare function buildFunction(projectRoot: string, entry: string, outdir: string): Promise<string[]>;
