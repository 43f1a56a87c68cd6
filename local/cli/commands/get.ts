/** `cloudorch get`: the clusters with their status columns, once or watching (`-w`). */
import { Option } from 'commander';
import { stringify } from 'yaml';
import { type Listing, listItems } from '../../../lambdas/store/list.js';
import type { Cli } from '../cli.js';
import { COLUMNS, invalidRow, type Output, row, table } from '../format.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';

const matches = (id: string, name: string) => id === name || id.endsWith(`/${name}`);

/** Malformed items are listed with their reason, never hidden and never fatal to the listing. */
function render({ records, invalid }: Listing, format: string, now: Date): string {
  const broken = invalid.map((i) => ({ id: i.id, recordInvalid: i.reason }));
  if (format === 'json') return JSON.stringify([...records, ...broken], null, 2);
  if (format === 'yaml') return stringify([...records, ...broken]).trimEnd();
  const lines = table([[...COLUMNS], ...records.map((r) => row(r, now)), ...invalid.map(invalidRow)]);
  for (const i of invalid) lines.push(`${i.id}: RecordInvalid: ${i.reason}`);
  return lines.join('\n');
}

export async function getCommand(
  t: Target,
  o: Output,
  name: string | undefined,
  opts: { output: string; watch?: boolean; intervalMs?: number },
): Promise<number> {
  if (!['table', 'json', 'yaml'].includes(opts.output)) {
    o.err(`error: -o must be table, json or yaml (got ${opts.output})`);
    return EXIT.error;
  }
  const select = async (): Promise<Listing> => {
    const all = await listItems(t.store);
    if (!name) return all;
    return {
      records: all.records.filter((r) => matches(r.id, name)),
      invalid: all.invalid.filter((i) => matches(i.id, name)),
    };
  };
  const first = await select();
  if (name && first.records.length === 0 && first.invalid.length === 0) {
    o.err(`error: cloudcluster ${name} not found`);
    return EXIT.error;
  }
  let last = render(first, opts.output, new Date());
  o.out(last);
  if (!opts.watch) return EXIT.ok;
  // Watch: print again whenever what would be shown changes, until interrupted.
  for (;;) {
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000));
    const now = render(await select(), opts.output, new Date());
    if (now !== last) {
      o.out(now);
      last = now;
    }
  }
}

export function registerGet({ program, o, withTarget }: Cli): void {
  program
    .command('get [name]')
    .description('list CloudClusters with their status')
    .addOption(new Option('-o, --output <format>', 'table, json or yaml').default('table'))
    .option('-w, --watch', 'keep printing changes')
    .action((name: string | undefined, opts: { output: string; watch?: boolean }) =>
      withTarget((t) => getCommand(t, o(), name, opts)),
    );
}
