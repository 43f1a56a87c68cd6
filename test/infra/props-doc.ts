/**
 * The props of the CloudOrch construct as their TSDoc says (read with the TypeScript compiler from
 * infra/lib/cloudorch-props.ts), rendered as the table docs/deploy.md shows, so the two cannot drift.
 * Regenerate the table: `npx tsx test/infra/props-doc.ts`.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';

export interface DocumentedProp {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly doc: string;
  readonly defaultValue: string | undefined;
}

const SOURCE = join(PROJECT_ROOT, 'infra', 'lib', 'cloudorch-props.ts');

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export function cloudOrchProps(): DocumentedProp[] {
  const program = ts.createProgram([SOURCE], { allowJs: false, noEmit: true });
  const file = program.getSourceFile(SOURCE);
  const props = file?.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'CloudOrchProps',
  );
  if (!file || !props) throw new Error(`CloudOrchProps not found in ${SOURCE}`);
  return props.members.filter(ts.isPropertySignature).map((m) => {
    const jsDoc = (m as unknown as { jsDoc?: ts.JSDoc[] }).jsDoc?.at(-1);
    const text = (c: ts.JSDoc['comment']) =>
      oneLine(typeof c === 'string' ? c : (ts.getTextOfJSDocComment(c) ?? ''));
    const def = jsDoc?.tags?.find((t) => t.tagName.text === 'default');
    return {
      name: (m.name as ts.Identifier).text,
      type: oneLine(m.type?.getText(file) ?? ''),
      required: m.questionToken === undefined,
      doc: text(jsDoc?.comment),
      defaultValue: def ? text(def.comment) : undefined,
    };
  });
}

const code = (s: string) => `\`${s.replaceAll('|', '\\|')}\``;
const cell = (s: string) => s.replaceAll('|', '\\|');

/** The markdown table of the props, columns padded the way the formatter of the docs pads them. */
export function propsTable(props: readonly DocumentedProp[] = cloudOrchProps()): string {
  const rows = [
    ['prop', 'type', 'default', 'what it does'],
    ...props.map((p) => [
      code(p.name),
      code(p.type),
      p.required ? 'required' : cell(p.defaultValue ?? ''),
      cell(p.doc),
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const [head, ...body] = rows;
  return [line(head ?? []), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...body.map(line)].join(
    '\n',
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) console.log(propsTable());
