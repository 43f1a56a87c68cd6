/** `cloudorch get`: the clusters with their status, in kubectl's formats, once or watching (`-w`). */
import { Option } from 'commander';
import { listItems } from '../../../lambdas/store/list.js';
import type { Cli } from '../cli.js';
import type { Output } from '../format.js';
import { type ScopeOptions, scopeOf, usageMessage, withScope, withSelector } from '../options.js';
import { dropsMalformed, FORMATS, type Format, parseFormat, render, type View } from '../output/render.js';
import { inScope, resolveName } from '../resolve.js';
import { parseSelector, type Selector } from '../select.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';

export interface GetOptions extends ScopeOptions {
  readonly output: string;
  readonly watch?: boolean;
  readonly selector?: string;
  readonly showLabels?: boolean;
  readonly intervalMs?: number;
}

/** What `get` shows now: one named record (or malformed item), or the scope narrowed by `-l`. */
async function view(
  t: Target,
  name: string | undefined,
  opts: GetOptions,
  selector: Selector | undefined,
): Promise<View> {
  const all = await listItems(t.store);
  const scope = scopeOf(opts);
  const table = { allNamespaces: opts.allNamespaces === true, showLabels: opts.showLabels === true };
  if (name === undefined) return { ...inScope(all, scope, selector), single: false, table, scope };
  const f = resolveName(all, name, scope);
  return f.kind === 'record'
    ? { records: [f.record], invalid: [], single: true, table, scope }
    : { records: [], invalid: [f.invalid], single: true, table, scope };
}

/** Prints what `render` made; returns it as one string, to tell a change while watching. */
function show(o: Output, v: View, format: Format): string {
  const { out, err } = render(v, format, new Date());
  for (const line of err) o.err(line);
  if (out !== '') o.out(out);
  return `${out}\n${err.join('\n')}`;
}

export async function getCommand(
  t: Target,
  o: Output,
  name: string | undefined,
  opts: GetOptions,
): Promise<number> {
  if (name !== undefined && opts.selector !== undefined) {
    o.err('error: a name and -l cannot be given together');
    return EXIT.error;
  }
  try {
    const format = parseFormat(opts.output);
    const selector = opts.selector === undefined ? undefined : parseSelector(opts.selector);
    const first = await view(t, name, opts, selector);
    let last = show(o, first, format);
    // A malformed item left out of stdout makes the output incomplete: exit 1, as kubectl does.
    const dropped = dropsMalformed(first, format);
    // A named malformed item: nothing to watch for in this format.
    if (!opts.watch || (dropped && first.single)) return dropped ? EXIT.error : EXIT.ok;
    // Watch: print again whenever what would be shown changes, until interrupted.
    for (;;) {
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000));
      const next = await view(t, name, opts, selector);
      const { out, err } = render(next, format, new Date());
      if (`${out}\n${err.join('\n')}` !== last) last = show(o, next, format);
    }
  } catch (err) {
    const message = usageMessage(err);
    if (!message) throw err;
    o.err(message);
    return EXIT.error;
  }
}

export function registerGet({ program, o, withTarget }: Cli): void {
  const get = program
    .command('get [name]')
    .description('list CloudClusters with their status (in namespace default, -n NS, or -A)')
    .addOption(new Option('-o, --output <format>', FORMATS.join(', ')).default('table'))
    .option('-w, --watch', 'keep printing changes')
    .option('--show-labels', 'add a LABELS column');
  withSelector(withScope(get)).action((name: string | undefined, opts: GetOptions) =>
    withTarget((t) => getCommand(t, o(), name, opts)),
  );
}
