/**
 * `get -o`: which formats there are, and what each prints. yaml and json print Kubernetes objects
 * (one object for a name, a `List` otherwise) that `apply -f` reads back; `record` prints the raw
 * store records. A malformed item cannot be shown as an object (nothing in it can be trusted), so
 * these formats leave it out of stdout and name it with its reason on stderr: what stdout holds
 * still applies back, and the malformed item is never hidden. The tables list it as a row.
 */
import { stringify } from 'yaml';
import type { InvalidItem } from '../../../lambdas/store/record.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import { RESOURCE, splitId } from '../resolve.js';
import { parseTemplate, renderTemplate, type Template } from './jsonpath.js';
import { toList, toObject } from './k8s.js';
import { renderTable, type TableOptions } from './table.js';

export type Format =
  | { readonly kind: 'table' | 'wide' | 'yaml' | 'json' | 'name' | 'record' }
  | { readonly kind: 'jsonpath'; readonly template: Template };

export const FORMATS = ['table', 'wide', 'yaml', 'json', 'name', 'record', 'jsonpath=TEMPLATE'] as const;

export class OutputFormatError extends Error {
  constructor(value: string) {
    super(`-o ${value} is not a format; use one of: ${FORMATS.join(', ')}`);
    this.name = 'OutputFormatError';
  }
}

/** The `-o` value; OutputFormatError (naming the valid ones) or JsonPathError otherwise. */
export function parseFormat(value: string): Format {
  if (value.startsWith('jsonpath='))
    return { kind: 'jsonpath', template: parseTemplate(value.slice('jsonpath='.length)) };
  for (const kind of ['table', 'wide', 'yaml', 'json', 'name', 'record'] as const)
    if (value === kind) return { kind };
  throw new OutputFormatError(value);
}

export interface View {
  readonly records: readonly ClusterRecord[];
  readonly invalid: readonly InvalidItem[];
  /** A name was given: one object rather than a List. */
  readonly single: boolean;
  readonly table: TableOptions;
}

/** What stdout gets, and what stderr gets (malformed items the format cannot hold). */
export function render(view: View, format: Format, now: Date): { out: string; err: string[] } {
  const { records, invalid } = view;
  if (format.kind === 'table' || format.kind === 'wide')
    return {
      out: renderTable(records, invalid, now, { ...view.table, wide: format.kind === 'wide' }).join('\n'),
      err: [],
    };
  if (format.kind === 'record') {
    const broken = invalid.map((i) => ({ id: i.id, recordInvalid: i.reason }));
    return { out: JSON.stringify([...records, ...broken], null, 2), err: [] };
  }
  const err = invalid.map(
    (i) => `error: cloudcluster ${i.id} is malformed, not printed (RecordInvalid: ${i.reason})`,
  );
  if (format.kind === 'name')
    return { out: records.map((r) => `${RESOURCE}/${splitId(r.id).name}`).join('\n'), err };
  const [only] = records;
  // A name that found only a malformed item: no object to print (stderr says why).
  if (view.single && !only) return { out: '', err };
  const value = view.single && only ? toObject(only) : toList(records);
  if (format.kind === 'json') return { out: JSON.stringify(value, null, 2), err };
  if (format.kind === 'yaml') return { out: stringify(value).trimEnd(), err };
  if (format.kind === 'jsonpath') return { out: renderTemplate(format.template, value), err };
  throw new OutputFormatError(format.kind);
}
