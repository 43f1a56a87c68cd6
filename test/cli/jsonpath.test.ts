/** -o jsonpath's template subset: what it prints, and what it refuses instead of ignoring. */
import { describe, expect, it } from 'vitest';
import { JsonPathError, parseTemplate, renderTemplate } from '../../local/cli/output/jsonpath.js';

const list = {
  kind: 'List',
  items: [
    { metadata: { name: 'a', labels: { app: 'web' } }, spec: { nodeCount: 1 } },
    { metadata: { name: 'b' }, spec: { nodeCount: 2 } },
  ],
};

describe('jsonpath templates', () => {
  it.each([
    ['{.items[*].metadata.name}', 'a b', 'several results joined by a space'],
    ['{.kind}: {.items[1].metadata.name}', 'List: b', 'text around expressions'],
    [
      '{range .items[*]}{.metadata.name}={@.spec.nodeCount}{"\\n"}{end}',
      'a=1\nb=2\n',
      'range, @ and a quoted newline',
    ],
    ['{.items[0].metadata.labels}', '{"app":"web"}', 'a map prints as JSON'],
    ['{.items[?(@.spec.nodeCount > 1)].metadata.name}', 'b', 'a filter'],
    ['{.items[5].metadata.name}', '', 'no result prints nothing'],
    ['{$.items.length}', '2', 'a $-rooted path'],
  ])('%s -> %j (%s)', (template, expected) =>
    expect(renderTemplate(parseTemplate(template), list)).toBe(expected),
  );

  it.each([
    ['{else}', 'a word kubectl templates do not have'],
    ['{end}', 'end without range'],
    ['{range .items[*]}{.x}', 'range without end'],
    ['{.items', 'an unclosed brace'],
    ['{}', 'an empty action'],
  ])('refuses %j (%s)', (template) => expect(() => parseTemplate(template)).toThrow(JsonPathError));
});
