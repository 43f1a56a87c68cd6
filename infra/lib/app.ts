/**
 * Builds the CDK app the way `cdk synth` and the tests do: the policy bundle is compiled by opa
 * into a temporary folder (never into the source tree), settings come from context, and the
 * AwsSolutions checks run on every synth.
 */
import { App, type AppProps, Duration, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import type { CloudOrchProps } from './cloudorch.js';
import { CloudOrchStack } from './cloudorch-stack.js';
import { PolicyBundleSource } from './policy-bundle-source.js';
import { DEFAULT_TARGET_ROLE_NAMES } from './target-access.js';

export { preparePolicyAsset } from './policy-bundle-source.js';

/** Context keys (cdk.json or `-c key=value`). */
export const CONTEXT = {
  stackName: 'cloudorch:stackName',
  subnetIds: 'cloudorch:subnetIds',
  securityGroupIds: 'cloudorch:securityGroupIds',
  clusterRoleArn: 'cloudorch:clusterRoleArn',
  nodeRoleArn: 'cloudorch:nodeRoleArn',
  sweepRateMinutes: 'cloudorch:sweepRateMinutes',
  sweepSegments: 'cloudorch:sweepSegments',
  alarmEmail: 'cloudorch:alarmEmail',
  driftCorrectionMinutes: 'cloudorch:driftCorrectionMinutes',
  bridgeOidcProviderArn: 'cloudorch:bridgeOidcProviderArn',
  bridgeOidcIssuer: 'cloudorch:bridgeOidcIssuer',
  deleteForeignNodegroups: 'cloudorch:deleteForeignNodegroups',
  targetAccounts: 'cloudorch:targetAccounts',
  targetOrganizationId: 'cloudorch:targetOrganizationId',
  targetReadRoleName: 'cloudorch:targetReadRoleName',
  targetWriteRoleName: 'cloudorch:targetWriteRoleName',
  targetExternalId: 'cloudorch:targetExternalId',
} as const;

/** A list from context: a JSON array or a comma-separated string. */
function list(v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (Array.isArray(v)) return v.map(String);
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function positive(v: unknown, key: string): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`context ${key} must be a positive integer, got ${v}`);
  return n;
}

/** A switch from context: `true` or `false` (a boolean, or its text as `-c key=value` gives it). */
function flag(v: unknown, key: string): boolean | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new Error(`context ${key} must be true or false, got ${v}`);
}

/** CloudOrch props from context; anything absent keeps the construct's documented default. */
export function propsFromContext(scope: Construct): Omit<CloudOrchProps, 'policyBundle'> {
  const ctx = (k: string): unknown => scope.node.tryGetContext(k);
  const subnetIds = list(ctx(CONTEXT.subnetIds));
  const securityGroupIds = list(ctx(CONTEXT.securityGroupIds));
  const clusterRoleArn = ctx(CONTEXT.clusterRoleArn) as string | undefined;
  const nodeRoleArn = ctx(CONTEXT.nodeRoleArn) as string | undefined;
  const rate = positive(ctx(CONTEXT.sweepRateMinutes), CONTEXT.sweepRateMinutes);
  const segments = positive(ctx(CONTEXT.sweepSegments), CONTEXT.sweepSegments);
  const drift = positive(ctx(CONTEXT.driftCorrectionMinutes), CONTEXT.driftCorrectionMinutes);
  const email = ctx(CONTEXT.alarmEmail) as string | undefined;
  const oidcArn = ctx(CONTEXT.bridgeOidcProviderArn) as string | undefined;
  const oidcIssuer = ctx(CONTEXT.bridgeOidcIssuer) as string | undefined;
  const deleteForeign = flag(ctx(CONTEXT.deleteForeignNodegroups), CONTEXT.deleteForeignNodegroups);
  const targetAccounts = list(ctx(CONTEXT.targetAccounts));
  const targetOrg = ctx(CONTEXT.targetOrganizationId) as string | undefined;
  const readName = ctx(CONTEXT.targetReadRoleName) as string | undefined;
  const writeName = ctx(CONTEXT.targetWriteRoleName) as string | undefined;
  const externalId = ctx(CONTEXT.targetExternalId) as string | undefined;
  const imported = (id: string, arn: string) => iam.Role.fromRoleArn(scope, id, arn, { mutable: false });
  return {
    ...(subnetIds ? { subnetIds } : {}),
    ...(securityGroupIds ? { securityGroupIds } : {}),
    ...(clusterRoleArn ? { clusterRole: imported('ImportedClusterRole', clusterRoleArn) } : {}),
    ...(nodeRoleArn ? { nodeRole: imported('ImportedNodeRole', nodeRoleArn) } : {}),
    ...(rate ? { sweepRate: Duration.minutes(rate) } : {}),
    ...(segments ? { sweepSegments: segments } : {}),
    ...(drift ? { driftCorrectionWindow: Duration.minutes(drift) } : {}),
    ...(email ? { alarmEmail: email } : {}),
    ...(oidcArn && oidcIssuer ? { bridge: { irsa: { oidcProviderArn: oidcArn, oidcIssuer } } } : {}),
    ...(deleteForeign !== undefined ? { deleteForeignNodegroups: deleteForeign } : {}),
    ...(targetAccounts ? { targetAccounts } : {}),
    ...(targetOrg ? { targetOrganizationId: targetOrg } : {}),
    ...(readName || writeName
      ? {
          targetRoleNames: {
            read: readName || DEFAULT_TARGET_ROLE_NAMES.read,
            write: writeName || DEFAULT_TARGET_ROLE_NAMES.write,
          },
        }
      : {}),
    ...(externalId ? { targetExternalId: externalId } : {}),
  };
}

export interface CreatedApp {
  readonly app: App;
  readonly stack: CloudOrchStack;
}

/** The app with one CloudOrch stack and the AwsSolutions checks registered. */
export async function createApp(appProps: AppProps = {}): Promise<CreatedApp> {
  const app = new App(appProps);
  // One template for every partition: ARNs keep `${AWS::Partition}` even when the region is known.
  app.node.setContext(cxapi.ENABLE_PARTITION_LITERALS, false);
  const policyBundle = await PolicyBundleSource.build();
  const stackName = (app.node.tryGetContext(CONTEXT.stackName) as string | undefined) ?? 'CloudOrch';
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  const stack = new CloudOrchStack(app, stackName, {
    ...(account && region ? { env: { account, region } } : {}),
    description: 'CloudOrch: keeps EKS clusters converged on declared desired state',
    policyBundle,
    ...propsFromContext(app),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
}
