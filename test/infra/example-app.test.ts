/**
 * The example app in examples/cdk-app, synthesized in process with its own cdk.json context, the
 * way `cdk synth` runs it there: the CloudOrch construct composed into another app's stack through
 * the public entry, with the example's props applied, from a built bundle and from a prebuilt file.
 * Also: the examples folder still holds only manifests for `cloudorch apply -f examples/`.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPlatformApp, PLATFORM_CONTEXT } from '../../examples/cdk-app/app.js';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { PolicyBundleSource, preparePolicyAsset } from '../../infra/lib/index.js';
import { ENV } from '../../lambdas/config.js';
import { loadManifests } from '../../local/cli/load.js';
import { BUNDLE_FILE } from '../../policies/build.js';
import { cdkJsonContext } from './support.js';

const EXAMPLE_DIR = join(PROJECT_ROOT, 'examples', 'cdk-app');
const context = cdkJsonContext(join(EXAMPLE_DIR, 'cdk.json'));
// Function bundling is the same code as the repository's own app (cli-synth.test.ts covers it).
const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

async function synthExample(extra: Record<string, unknown> = {}) {
  const outdir = mkdtempSync(join(tmpdir(), 'cloudorch-example-'));
  const { app, stack } = await createPlatformApp({
    outdir,
    context: { ...context, ...NO_BUNDLING, ...extra },
  });
  const assembly = app.synth();
  return { stack, template: Template.fromStack(stack), outdir: assembly.directory };
}

type Synth = Awaited<ReturnType<typeof synthExample>>;
let built: Synth;

beforeAll(async () => {
  built = await synthExample();
}, 120_000);

const fnEnv = (t: Template) =>
  Object.values(t.findResources('AWS::Lambda::Function')).map(
    (r) => (r['Properties'].Environment?.Variables ?? {}) as Record<string, unknown>,
  );

describe('examples/cdk-app', () => {
  it("is its own stack holding CloudOrch's resources", () => {
    expect(built.stack.stackName).toBe('Platform');
    expect(built.stack.cloudorch.node.path).toBe('Platform/Reconciler');
    const t = built.template;
    // The desired-state, coordination and rollout tables; the Reconcile and Rollout machines.
    t.resourceCountIs('AWS::DynamoDB::GlobalTable', 3);
    t.resourceCountIs('AWS::StepFunctions::StateMachine', 2);
    t.resourceCountIs('Custom::CDKBucketDeployment', 1);
    t.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    // Sixteen CloudOrch functions and CDK's bucket deployment handler.
    t.resourceCountIs('AWS::Lambda::Function', 17);
  });

  it("applies the example's props: subnets, alarm e-mail, sweep rate, EKS call rate, drift window", () => {
    const t = built.template;
    const envs = fnEnv(t).filter((e) => ENV.table in e);
    expect(envs).toHaveLength(16);
    for (const e of envs) expect(e[ENV.subnets]).toBe(context[PLATFORM_CONTEXT.subnetIds]);
    expect(
      envs.filter((e) => e[ENV.eksCallsPerSecond] !== undefined).map((e) => e[ENV.eksCallsPerSecond]),
    ).toEqual(expect.arrayContaining(['3']));
    expect(
      new Set(envs.flatMap((e) => (e[ENV.eksCallsPerSecond] ? [e[ENV.eksCallsPerSecond]] : []))).size,
    ).toBe(1);
    t.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: context[PLATFORM_CONTEXT.alarmEmail],
    });
    t.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'rate(10 minutes)' });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', { Threshold: 45 * 60 });
  });

  it('trusts the bridge in its own namespace, through Pod Identity and its own OIDC provider', () => {
    const bridge = built.stack.getLogicalId(built.stack.cloudorch.bridgeRole.node.defaultChild as never);
    const trust = JSON.stringify(built.template.toJSON()['Resources'][bridge]);
    expect(trust).toContain('system:serviceaccount:platform-system:cloudorch-bridge');
    expect(trust).toContain(String(context[PLATFORM_CONTEXT.oidcProviderArn]));
    expect(trust).toContain(`${context[PLATFORM_CONTEXT.oidcIssuer]}:aud`);
  });

  it('grants its operators role the CLI permissions through the construct', () => {
    const policies = JSON.stringify(built.template.findResources('AWS::IAM::Policy'));
    const operators = built.stack.getLogicalId(built.stack.operators.node.defaultChild as never);
    const own = Object.values(built.template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p['Properties'].Roles).includes(operators),
    );
    expect(own).toHaveLength(1);
    const actions = JSON.stringify(own[0]?.['Properties'].PolicyDocument);
    for (const a of ['dynamodb:PutItem', 'dynamodb:Scan', 'lambda:InvokeFunction'])
      expect(actions).toContain(a);
    expect(policies).toContain('dynamodb:Attributes');
  });

  it('deploys the bundle built from the policies, or a prebuilt file passed in context', async () => {
    const builtAsset = await preparePolicyAsset();
    const prebuilt = join(builtAsset, BUNDLE_FILE);
    const fromFile = await synthExample({ [PLATFORM_CONTEXT.policyBundle]: prebuilt });
    // The same bytes make the same asset, so both sources deploy the identical object.
    const assets = (s: Synth) =>
      Object.keys(
        (JSON.parse(readFileSync(join(s.outdir, 'Platform.assets.json'), 'utf8')) as { files: object }).files,
      ).sort();
    expect(assets(fromFile)).toEqual(assets(built));
    expect(PolicyBundleSource.fromFile(prebuilt).assetDir).toContain('file-');
  }, 120_000);
});

describe('the examples folder', () => {
  it('still reads as manifests only: `apply -f examples/` does not descend into cdk-app/', async () => {
    const { manifests, issues } = await loadManifests([join(PROJECT_ROOT, 'examples')]);
    expect(issues).toEqual([]);
    expect(manifests.length).toBeGreaterThan(0);
    expect(manifests.every((m) => m.id.length > 0)).toBe(true);
  });
});
