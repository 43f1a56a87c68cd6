/**
 * cdk-nag finding ids built from the values the policies really hold. cdk-nag names a wildcard
 * resource after the resolved template value, so an id written by hand (`<AWS::AccountId>`) stops
 * matching as soon as the stack has a concrete environment (`cdk deploy` passes the caller's account
 * and region). Resolving the same string the grant uses gives the id cdk-nag will report, whatever
 * the environment.
 */
import { Stack } from 'aws-cdk-lib';
// cdk-nag's own flattening (not re-exported by its index): the ids must be rendered exactly its way.
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import type { IConstruct } from 'constructs';

/** The finding cdk-nag reports for this resource value (an ARN, possibly holding tokens). */
export function resourceFinding(scope: IConstruct, rule: 'AwsSolutions-IAM5', resource: string): string {
  return `${rule}[Resource::${flattenCfnReference(Stack.of(scope).resolve(resource))}]`;
}

/** The finding cdk-nag reports for an attached managed policy. */
export function managedPolicyFinding(scope: IConstruct, policyArn: string): string {
  return `AwsSolutions-IAM4[Policy::${flattenCfnReference(Stack.of(scope).resolve(policyArn))}]`;
}
