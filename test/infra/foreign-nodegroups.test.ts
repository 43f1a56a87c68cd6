/**
 * `deleteForeignNodegroups` (context `cloudorch:deleteForeignNodegroups`): the apply role alone gains
 * one statement, DeleteNodegroup on node groups without the ownership-tag condition, and nothing else
 * in the template changes. Without it (iam.test.ts) every node group deletion needs the tag.
 */

import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT, propsFromContext } from '../../infra/lib/app.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';
import {
  logicalId,
  type PolicyStatement,
  type Synthesized,
  statementsOfRole,
  synthesize,
  TEST_CONTEXT,
} from './support.js';

const SID = 'EksDeleteForeignNodegroups';
const KEYS = Object.keys(FUNCTIONS) as FunctionKey[];

let withProp: Synthesized;
let without: Synthesized;
const roleStatements = (s: Synthesized, key: FunctionKey): PolicyStatement[] =>
  statementsOfRole(s, logicalId(s, s.stack.cloudorch.functions[key].role as never));

beforeAll(async () => {
  withProp = await synthesize({ ...TEST_CONTEXT, [CONTEXT.deleteForeignNodegroups]: 'true' });
  without = await synthesize(TEST_CONTEXT);
}, 240_000);

describe('deleteForeignNodegroups', () => {
  it('gives the apply role one untagged DeleteNodegroup on node groups, and no other role anything', () => {
    for (const key of KEYS) {
      const foreign = roleStatements(withProp, key).filter((st) => st.Sid === SID);
      if (key !== 'apply') {
        expect(foreign, key).toEqual([]);
        continue;
      }
      expect(foreign).toHaveLength(1);
      expect(foreign[0]?.Action).toBe('eks:DeleteNodegroup');
      expect(foreign[0]?.Condition).toBeUndefined();
      // Every node group of the account, any region: the same pattern the tag-conditioned statements use.
      expect(foreign[0]?.Resource).toEqual({
        'Fn::Join': [
          '',
          ['arn:', { Ref: 'AWS::Partition' }, ':eks:*:', { Ref: 'AWS::AccountId' }, ':nodegroup/*/*/*'],
        ],
      });
    }
  });

  it('changes nothing else in the template', () => {
    const strip = (s: Synthesized) =>
      JSON.parse(JSON.stringify(s.json), (_, v: unknown) =>
        Array.isArray(v) ? v.filter((x) => (x as { Sid?: string } | null)?.Sid !== SID) : v,
      ) as unknown;
    expect(strip(withProp)).toEqual(strip(without));
    expect(JSON.stringify(without.json)).not.toContain(SID);
  });

  it('is off by default and read from context as true or false', () => {
    const props = (value?: unknown) => {
      const app = new App(
        value === undefined ? {} : { context: { [CONTEXT.deleteForeignNodegroups]: value } },
      );
      return propsFromContext(app).deleteForeignNodegroups;
    };
    expect(props()).toBeUndefined();
    expect(props(true)).toBe(true);
    expect(props('true')).toBe(true);
    expect(props('false')).toBe(false);
    expect(() => props('yes')).toThrow(/cloudorch:deleteForeignNodegroups must be true or false/);
  });
});
