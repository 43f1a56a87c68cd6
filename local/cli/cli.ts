/** What every command's registration gets: the program, its output, and a way to run against a target. */
import type { Command } from 'commander';
import { type Output, output } from './format.js';
import { resolveTarget, type Target, type TargetOptions } from './target.js';

export interface Global extends TargetOptions {
  color?: boolean;
}

export interface Cli {
  readonly program: Command;
  /** The output, built when a command runs: global options are read after parsing. */
  o(): Output;
  /** Runs a command against its target, sets the exit code, and always releases the target's clients. */
  withTarget(f: (t: Target) => Promise<number>): Promise<void>;
}

export function cliOf(program: Command): Cli {
  return {
    program,
    o: () => output(program.opts<Global>()),
    withTarget: async (f) => {
      const t = await resolveTarget(program.opts<Global>());
      try {
        process.exitCode = await f(t);
      } finally {
        t.close();
      }
    },
  };
}
