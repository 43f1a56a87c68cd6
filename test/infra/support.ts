/** One in-process synthesis per test file, with every optional feature switched on. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CONTEXT, createApp } from '../../infra/lib/app.js';
import type { CloudOrchStack } from '../../infra/lib/cloudorch-stack.js';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';

/** The context of a cdk.json (this repository's by default): settings and feature flags. */
export function cdkJsonContext(file: string = join(PROJECT_ROOT, 'cdk.json')): Record<string, unknown> {
  return (JSON.parse(readFileSync(file, 'utf8')) as { context: Record<string, unknown> }).context;
}

export const TEST_CONTEXT = {
  [CONTEXT.subnetIds]: 'subnet-0aaa,subnet-0bbb',
  [CONTEXT.securityGroupIds]: 'sg-0ccc',
  [CONTEXT.alarmEmail]: 'ops@example.com',
  [CONTEXT.sweepRateMinutes]: 10,
  [CONTEXT.sweepSegments]: 2,
  [CONTEXT.driftCorrectionMinutes]: 20,
  [CONTEXT.bridgeOidcProviderArn]:
    'arn:aws:iam::111111111111:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/ABC',
  [CONTEXT.bridgeOidcIssuer]: 'https://oidc.eks.eu-west-1.amazonaws.com/id/ABC',
};

export interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

export interface PolicyStatement {
  readonly Sid?: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
  readonly Effect: string;
}

export interface Synthesized {
  readonly app: App;
  readonly stack: CloudOrchStack;
  readonly template: Template;
  readonly json: { Resources: Record<string, CfnResource> };
}

/** Synthesizes the app as `cdk synth` does: cdk.json's context (its feature flags too), then `context`. */
export async function synthesize(context: Record<string, unknown> = TEST_CONTEXT): Promise<Synthesized> {
  const outdir = mkdtempSync(join(tmpdir(), 'cloudorch-synth-'));
  const { app, stack } = await createApp({ outdir, context: { ...cdkJsonContext(), ...context } });
  // Throws ValidationFailed when cdk-nag reports an unacknowledged finding.
  app.synth();
  const template = Template.fromStack(stack);
  return { app, stack, template, json: template.toJSON() as Synthesized['json'] };
}

/** Logical id of the resource a construct path ends in. */
/** The resource with this logical id (fails loudly when absent). */
export function resource(s: Synthesized, id: string): CfnResource {
  const r = s.json.Resources[id];
  if (!r) throw new Error(`no resource ${id} in the template`);
  return r;
}

export function logicalId(s: Synthesized, construct: { node: { defaultChild?: unknown } }): string {
  return s.stack.getLogicalId(construct.node.defaultChild as never);
}

/** Every statement of every AWS::IAM::Policy attached to the role with this logical id. */
export function statementsOfRole(s: Synthesized, roleId: string): PolicyStatement[] {
  return Object.values(s.json.Resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((p) => ((p.Properties['Roles'] ?? []) as { Ref?: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties['PolicyDocument'] as { Statement: PolicyStatement[] }).Statement);
}
