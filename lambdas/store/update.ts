/**
 * Update expressions built from a small mutation description, so every store write states what it
 * sets, increments and removes as data, and placeholder names are derived instead of listed by hand.
 */

export interface Mutation {
  /** Attribute (or `attribute.member` for one member of a map) to value. */
  readonly set?: Readonly<Record<string, unknown>>;
  /** Numeric attributes incremented in place (`#a = #a + :n`). */
  readonly increment?: Readonly<Record<string, number>>;
  readonly remove?: readonly string[];
}

export interface Expression {
  readonly expression: string;
  readonly values?: Readonly<Record<string, unknown>>;
}

export interface UpdateParams {
  readonly UpdateExpression: string;
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues?: Record<string, unknown>;
}

/** `#name` placeholders stand for the attribute of the same name; DynamoDB rejects unused names. */
export function attributeNames(...expressions: string[]): Record<string, string> {
  const names: Record<string, string> = {};
  for (const e of expressions) for (const m of e.matchAll(/#(\w+)/g)) names[m[0]] = m[1] ?? '';
  return names;
}

export function updateParams(mutation: Mutation, condition: Expression): UpdateParams {
  const values: Record<string, unknown> = { ...condition.values };
  const sets: string[] = [];
  for (const [attr, value] of Object.entries(mutation.set ?? {})) {
    const placeholder = `:set_${attr.replaceAll('.', '_')}`;
    sets.push(
      `${attr
        .split('.')
        .map((a) => `#${a}`)
        .join('.')} = ${placeholder}`,
    );
    values[placeholder] = value;
  }
  for (const [attr, by] of Object.entries(mutation.increment ?? {})) {
    sets.push(`#${attr} = #${attr} + :inc_${attr}`);
    values[`:inc_${attr}`] = by;
  }
  const clauses: string[] = [];
  if (sets.length > 0) clauses.push(`SET ${sets.join(', ')}`);
  if (mutation.remove?.length) clauses.push(`REMOVE ${mutation.remove.map((a) => `#${a}`).join(', ')}`);
  const UpdateExpression = clauses.join(' ');
  return {
    UpdateExpression,
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: attributeNames(UpdateExpression, condition.expression),
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}
