/** What every command's registration gets: the program, its output, and a way to run against a target. */
import type { Command } from 'commander';
import { type Output, output } from './format.js';
import { resolveTarget, type Target, TargetError, type TargetOptions } from './target.js';

export interface Global extends TargetOptions {
  color?: boolean;
}

export interface Cli {
  readonly program: Command;
  /** The output, built when a command runs: global options are read after parsing. */
  o(): Output;
  /** The target the global options, the environment and the named targets select. */
  target(): Promise<Target>;
  /** Runs a command against its target, sets the exit code, and always releases the target's clients. */
  withTarget(f: (t: Target) => Promise<number>): Promise<void>;
}

/**
 * An error of a call to the target, naming it: a deployed stack and where its names came from, or
 * the dev and its state file (a dev that stopped answering leaves only a refused connection).
 */
function inContext(t: Target, err: unknown): unknown {
  if (!(err instanceof Error) || err instanceof TargetError) return err;
  return new TargetError(`${err.message} (target: ${t.description})`, { cause: err });
}

export function cliOf(program: Command): Cli {
  const target = () => resolveTarget(program.opts<Global>());
  return {
    program,
    o: () => output(program.opts<Global>()),
    target,
    withTarget: async (f) => {
      const t = await target();
      try {
        process.exitCode = await f(t);
      } catch (err) {
        throw inContext(t, err);
      } finally {
        t.close();
      }
    },
  };
}
