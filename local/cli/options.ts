/** The kubectl options commands share: `-n`, `-A` and `-l`, and the errors they report. */
import type { Command } from 'commander';
import { JsonPathError } from './output/jsonpath.js';
import { OutputFormatError } from './output/render.js';
import { NameResolutionError, type Scope } from './resolve.js';
import { SelectorError } from './select.js';

export interface ScopeOptions {
  readonly namespace?: string;
  readonly allNamespaces?: boolean;
}

export function withScope(cmd: Command): Command {
  return cmd
    .option('-n, --namespace <namespace>', 'the namespace (default: default; a bare name: any)')
    .option('-A, --all-namespaces', 'every namespace');
}

export function withSelector(cmd: Command): Command {
  return cmd.option(
    '-l, --selector <selector>',
    'label selector: key=value, key!=value, key, !key, key in (a,b), key notin (a,b), comma-separated',
  );
}

export function scopeOf(opts: ScopeOptions): Scope {
  return {
    ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
    ...(opts.allNamespaces ? { allNamespaces: true } : {}),
  };
}

/** The message of an error a user's input caused (a name, a selector, a format); undefined otherwise. */
export function usageMessage(err: unknown): string | undefined {
  if (
    err instanceof NameResolutionError ||
    err instanceof SelectorError ||
    err instanceof OutputFormatError ||
    err instanceof JsonPathError
  )
    return `error: ${err.message}`;
  return undefined;
}
