/**
 * CloudOrch inside another CDK app: a platform team's own stack composes the CloudOrch construct
 * with its own settings, from its own context (this folder's cdk.json), and gives its operators the
 * CLI's permissions. Run from this folder: `npx cdk synth`. The import goes through the public entry
 * of the construct, the only module an app outside this repository should use.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, type AppProps, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { CloudOrch, type CloudOrchProps, PolicyBundleSource } from '../../infra/lib/index.js';

/** This app's own context keys (see its cdk.json). */
export const PLATFORM_CONTEXT = {
  subnetIds: 'platform:privateSubnetIds',
  alarmEmail: 'platform:oncallEmail',
  oidcProviderArn: 'platform:eksOidcProviderArn',
  oidcIssuer: 'platform:eksOidcIssuer',
  /** A prebuilt bundle.tar.gz; without it the bundle is built from the package's policies by opa. */
  policyBundle: 'platform:policyBundleFile',
} as const;

export interface PlatformStackProps extends StackProps {
  readonly cloudorch: CloudOrchProps;
}

/** The platform's stack: CloudOrch plus an operators role allowed what `cloudorch` CLI users need. */
export class PlatformStack extends Stack {
  readonly cloudorch: CloudOrch;
  readonly operators: iam.Role;

  constructor(scope: Construct, id: string, props: PlatformStackProps) {
    super(scope, id, props);
    this.cloudorch = new CloudOrch(this, 'Reconciler', props.cloudorch);
    this.operators = new iam.Role(this, 'Operators', {
      assumedBy: new iam.AccountRootPrincipal(),
      description: 'Platform operators: apply specs, read status, reconcile now',
    });
    this.cloudorch.grantSpecWrite(this.operators);
    this.cloudorch.grantReadStatus(this.operators);
    this.cloudorch.grantReconcileNow(this.operators);
    new CfnOutput(this, 'ReconcilerTable', { value: this.cloudorch.table.tableName });
    new CfnOutput(this, 'OperatorsRoleArn', { value: this.operators.roleArn });
  }
}

export async function createPlatformApp(
  appProps: AppProps = {},
): Promise<{ app: App; stack: PlatformStack }> {
  const app = new App(appProps);
  const ctx = (key: string) => app.node.tryGetContext(key) as string | undefined;
  const bundleFile = ctx(PLATFORM_CONTEXT.policyBundle);
  const oidcProviderArn = ctx(PLATFORM_CONTEXT.oidcProviderArn);
  const oidcIssuer = ctx(PLATFORM_CONTEXT.oidcIssuer);
  const email = ctx(PLATFORM_CONTEXT.alarmEmail);
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  const stack = new PlatformStack(app, 'Platform', {
    ...(account && region ? { env: { account, region } } : {}),
    cloudorch: {
      policyBundle: bundleFile ? PolicyBundleSource.fromFile(bundleFile) : await PolicyBundleSource.build(),
      subnetIds: (ctx(PLATFORM_CONTEXT.subnetIds) ?? '').split(',').filter(Boolean),
      ...(email ? { alarmEmail: email } : {}),
      bridge: {
        namespace: 'platform-system',
        serviceAccount: 'cloudorch-bridge',
        ...(oidcProviderArn && oidcIssuer ? { irsa: { oidcProviderArn, oidcIssuer } } : {}),
      },
      sweepRate: Duration.minutes(10),
      eksCallsPerSecond: 3,
      driftCorrectionWindow: Duration.minutes(45),
    },
  });
  return { app, stack };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { app } = await createPlatformApp();
  app.synth();
}
