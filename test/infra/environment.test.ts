/**
 * Synthesis the way `cdk deploy` runs the app: the CLI resolves the caller's account and region and
 * passes them as CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION, which pin the stack's environment. cdk-nag
 * must still pass (its finding ids then hold the literal account and region), and every ARN keeps the
 * partition token, so one template fits every partition. The environment-agnostic synthesis is
 * checked by stack.test.ts.
 */
import { Validations } from 'aws-cdk-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONTEXT } from '../../infra/lib/app.js';
import { logicalId, statementsOfRole, synthesize, TEST_CONTEXT } from './support.js';

// Bundling is irrelevant to IAM and nag; skipping it keeps each synthesis to a few seconds.
const CONTEXT_WITHOUT_BUNDLING = { ...TEST_CONTEXT, 'aws:cdk:bundling-stacks': [] };

const ENVIRONMENTS = [
  { account: '123456789012', region: 'eu-central-1' },
  // Another partition: nothing may assume `aws`.
  { account: '210987654321', region: 'us-gov-west-1' },
];

afterEach(() => {
  vi.unstubAllEnvs();
});

describe.each(ENVIRONMENTS)('synthesis for $account in $region', ({ account, region }) => {
  it('pins the environment and has no unacknowledged cdk-nag finding', async () => {
    vi.stubEnv('CDK_DEFAULT_ACCOUNT', account);
    vi.stubEnv('CDK_DEFAULT_REGION', region);
    // synthesize throws ValidationFailed on any unacknowledged finding.
    const s = await synthesize(CONTEXT_WITHOUT_BUNDLING);
    expect(s.stack.account).toBe(account);
    expect(s.stack.region).toBe(region);

    // The grants hold the literal account, with the partition left to CloudFormation.
    const apply = statementsOfRole(s, logicalId(s, s.stack.cloudorch.functions.apply.role as never));
    const resources = JSON.stringify(apply.map((st) => st.Resource));
    expect(resources).toContain(
      JSON.stringify({
        'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:eks:*:${account}:cluster/*`]],
      }),
    );

    // No ARN the stack writes names a partition; the IRSA provider ARN is the test context's own.
    const text = JSON.stringify(s.json).replaceAll(TEST_CONTEXT[CONTEXT.bridgeOidcProviderArn], '');
    expect(text).not.toMatch(/arn:aws[a-z-]*:/);

    // The acknowledgements followed the environment (they are built from the granted ARNs).
    const acknowledged = s.app.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
      .flatMap((m) => Object.keys(m.data as Record<string, string>))
      // Recorded as `Annotation::<rule id>`.
      .map((id) => id.replace(/^Annotation::/, ''));
    expect(acknowledged).toContain(
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:eks:*:${account}:cluster/*]`,
    );
    expect(acknowledged).toContain(
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${account}-${region}/*]`,
    );
  }, 120_000);
});
