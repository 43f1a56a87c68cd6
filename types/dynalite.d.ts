/** dynalite 4 ships no types; only the factory CloudOrch calls is declared. */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** Milliseconds a table stays CREATING (default 500); 0 makes it ACTIVE at once. */
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    /** LevelDB folder; in memory when absent. */
    path?: string;
    verbose?: boolean;
    debug?: boolean;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export = dynalite;
}
