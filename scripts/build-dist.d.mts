/** Types of scripts/build-dist.mjs for the TypeScript that imports it (tests, vitest setup). */
export declare const ROOT: string;
export declare const DIST: string;
export declare const ENTRIES: Record<string, string>;
export declare const CDK_ENTRY: string;
export declare function buildDist(): Promise<{ ms: number }>;
export declare function buildCdk(): Promise<{ ms: number }>;
export declare function distIsCurrent(): Promise<boolean>;
export declare function ensureDist(): Promise<boolean>;
