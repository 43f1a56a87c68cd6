/**
 * `get -o`: which formats there are, and what each prints. yaml and json print Kubernetes objects
 * (one object for a name, a `List` otherwise) that `apply -f` reads back; `record` prints the raw
 * store records. A malformed item cannot be shown as an object (nothing in it can be trusted), so
 * these formats leave it out of stdout and name it with its reason on stderr: what stdout holds
 * still applies back, and the malformed item is never hidden; `get` then exits 1, as kubectl does when
 * some objects could not be printed. The tables list it as a row.
 */
import { stringify } from 'yaml';
import type { InvalidItem } from '../../../lambdas/store/record.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import { DEFAULT_NAMESPACE, RESOURCE, type Scope, splitId } from '../resolve.js';
import { JsonPathError, parseTemplate, renderTemplate, type Template } from './jsonpath.js';
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

/** kubectl's words when a list in the scope is empty (stderr; get, delete -l and reconcile -l). */
export function noResourcesFound(scope: Scope): string {
  return `No resources found${scope.allNamespaces ? '' : ` in ${scope.namespace ?? DEFAULT_NAMESPACE} namespace`}.`;
}

/** The `-o` value; OutputFormatError (naming the valid ones) or JsonPathError otherwise. */
export function parseFormat(value: string): Format {
  if (value.startsWith('jsonpath=')) {
    // kubectl refuses an empty template too, rather than printing nothing.
    if (value === 'jsonpath=') throw new JsonPathError('template format specified but no template given');
    return { kind: 'jsonpath', template: parseTemplate(value.slice('jsonpath='.length)) };
  }
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
  /** For the table's "No resources found" line. */
  readonly scope: Scope;
}

/** Formats that leave a malformed item out (stderr names it), so `get` must not exit 0. */
export function dropsMalformed(view: View, format: Format): boolean {
  return view.invalid.length > 0 && !['table', 'wide', 'record'].includes(format.kind);
}

/** What stdout gets, and what stderr gets (malformed items the format cannot hold). */
export function render(view: View, format: Format, now: Date): { out: string; err: string[] } {
  const { records, invalid } = view;
  if (format.kind === 'table' || format.kind === 'wide') {
    // As kubectl: no header alone, but a line on stderr (structured formats print an empty List).
    if (!view.single && records.length === 0 && invalid.length === 0)
      return { out: '', err: [noResourcesFound(view.scope)] };
    return {
      out: renderTable(records, invalid, now, { ...view.table, wide: format.kind === 'wide' }).join('\n'),
      err: [],
    };
  }
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
