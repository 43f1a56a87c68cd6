/**
 * The CDK app of a target account: one TargetAccountStack, settings from context, the AwsSolutions
 * checks on every synth. `cdk deploy` it in each target account, or synthesize it once for a
 * CloudFormation StackSet (docs/deploy.md, "Clusters in other accounts").
 */
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CONTEXT } from './app.js';
import { DEFAULT_TARGET_ROLE_NAMES, TargetAccountsConfigError } from './target-access.js';
import { TargetAccountStack } from './target-account-stack.js';

/** Context keys of the target app; role names and ExternalId are the control plane's own keys. */
export const TARGET_CONTEXT = {
  stackName: 'cloudorch:targetStackName',
  controlPlaneAccount: 'cloudorch:controlPlaneAccount',
  controlPlaneRegion: 'cloudorch:controlPlaneRegion',
  controlPlaneStackName: CONTEXT.stackName,
  readRoleArns: 'cloudorch:controlPlaneReadRoleArns',
  writeRoleArns: 'cloudorch:controlPlaneWriteRoleArns',
  rolesRegion: 'cloudorch:targetRolesRegion',
  readRoleName: CONTEXT.targetReadRoleName,
  writeRoleName: CONTEXT.targetWriteRoleName,
  externalId: CONTEXT.targetExternalId,
} as const;

const text = (app: App, key: string): string | undefined => {
  const v: unknown = app.node.tryGetContext(key);
  return v === undefined || v === null || v === '' ? undefined : String(v);
};
const arns = (v: string | undefined) =>
  v
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export interface CreatedTargetApp {
  readonly app: App;
  readonly stack: TargetAccountStack;
}

export function createTargetApp(appProps: AppProps = {}): CreatedTargetApp {
  const app = new App(appProps);
  app.node.setContext(cxapi.ENABLE_PARTITION_LITERALS, false);
  const t = (k: keyof typeof TARGET_CONTEXT) => text(app, TARGET_CONTEXT[k]);
  const controlPlaneAccount = t('controlPlaneAccount');
  if (!controlPlaneAccount)
    throw new TargetAccountsConfigError(`context ${TARGET_CONTEXT.controlPlaneAccount} is required`);
  const read = arns(t('readRoleArns'));
  const write = arns(t('writeRoleArns'));
  if ((read === undefined) !== (write === undefined))
    throw new TargetAccountsConfigError(
      `give both ${TARGET_CONTEXT.readRoleArns} and ${TARGET_CONTEXT.writeRoleArns}, or neither`,
    );
  const readName = t('readRoleName');
  const writeName = t('writeRoleName');
  const [region, stackName] = [t('controlPlaneRegion'), t('controlPlaneStackName')];
  const [rolesRegion, externalId] = [t('rolesRegion'), t('externalId')];
  const stack = new TargetAccountStack(app, t('stackName') ?? 'CloudOrchTarget', {
    description: "CloudOrch target account: roles CloudOrch assumes, EKS events to its control plane's bus",
    controlPlaneAccount,
    ...(region ? { controlPlaneRegion: region } : {}),
    ...(stackName ? { controlPlaneStackName: stackName } : {}),
    ...(read && write ? { controlPlaneRoleArns: { read, write } } : {}),
    ...(readName || writeName
      ? {
          roleNames: {
            read: readName ?? DEFAULT_TARGET_ROLE_NAMES.read,
            write: writeName ?? DEFAULT_TARGET_ROLE_NAMES.write,
          },
        }
      : {}),
    ...(rolesRegion ? { rolesRegion } : {}),
    ...(externalId ? { externalId } : {}),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
}
