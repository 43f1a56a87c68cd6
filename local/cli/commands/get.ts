/** `cloudorch get`: the clusters with their status columns, once or watching (`-w`). */
import { stringify } from 'yaml';
import { listAll } from '../../../lambdas/store/list.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import { COLUMNS, type Output, row, table } from '../format.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';

export const listRecords = (t: Target): Promise<ClusterRecord[]> => listAll(t.store);

function render(records: ClusterRecord[], format: string, now: Date): string {
  if (format === 'json') return JSON.stringify(records, null, 2);
  if (format === 'yaml') return stringify(records).trimEnd();
  return table([[...COLUMNS], ...records.map((r) => row(r, now))]).join('\n');
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
  const select = async () => {
    const all = await listRecords(t);
    return name ? all.filter((r) => r.id === name || r.id.endsWith(`/${name}`)) : all;
  };
  const first = await select();
  if (name && first.length === 0) {
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
