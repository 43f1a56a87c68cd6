/**
 * The policy bundle in a versioned, encrypted bucket. The bundle is built by `opa build` at synth
 * time (never committed) and copied into the bucket on deploy; the policy engine re-reads the object
 * with a conditional GET, so a new bundle takes effect without redeploying any function.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { managedPolicyFinding, resourceFinding } from './nag.js';

export const BUNDLE_KEY_PREFIX = 'policy/';
export const BUNDLE_OBJECT = 'bundle.tar.gz';

export interface PolicyBundleProps {
  /** A folder holding exactly `bundle.tar.gz` (see `preparePolicyAsset`). */
  readonly assetDir: string;
  /**
   * How long replaced bundle versions are kept (for rollback by restoring a version).
   * @default Duration.days(90)
   */
  readonly keepOldVersionsFor?: Duration;
}

export class PolicyBundle extends Construct {
  readonly bucket: s3.Bucket;
  readonly deployment: s3deploy.BucketDeployment;
  readonly objectKey = `${BUNDLE_KEY_PREFIX}${BUNDLE_OBJECT}`;

  constructor(scope: Construct, id: string, props: PolicyBundleProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      versioned: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ noncurrentVersionExpiration: props.keepOldVersionsFor ?? Duration.days(90) }],
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Holds one object written only by the stack deployment and read only by the policy function; ' +
        'object versions and CloudTrail record changes, a second log bucket would only log itself.',
    });
    this.deployment = new s3deploy.BucketDeployment(this, 'Deploy', {
      sources: [s3deploy.Source.asset(props.assetDir)],
      // aws-cdk-lib's types do not line Bucket up with IBucket under exactOptionalPropertyTypes.
      destinationBucket: this.bucket as unknown as s3.IBucket,
      destinationKeyPrefix: BUNDLE_KEY_PREFIX,
      // Old versions stay in the versioned bucket; the deployment never deletes the live object.
      prune: false,
      retainOnDelete: true,
      memoryLimit: 256,
    });
    // The copy runs in CDK's singleton handler (a child of the stack, shared by all deployments).
    const stack = Stack.of(this);
    const handler = stack.node.children
      .filter((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'))
      .at(0);
    // The asset the deployment reads (its bucket is the bootstrap bucket of the stack's environment).
    const asset = this.deployment.node
      .findAll()
      .find((c): c is s3assets.Asset => c instanceof s3assets.Asset);
    if (!handler || !asset)
      throw new Error('BucketDeployment changed shape: handler or source asset not found');
    // Finding ids are built from the ARNs the grants hold (see nag.ts), never written by hand.
    Validations.of(handler).acknowledge(
      {
        id: managedPolicyFinding(
          stack,
          iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')
            .managedPolicyArn,
        ),
        reason: 'CDK-managed deployment handler; it only writes its own logs with this policy.',
      },
      {
        id: 'AwsSolutions-L1',
        reason: 'CDK pins the runtime of its BucketDeployment handler; it runs only during deploys.',
      },
      ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map((a) => ({
        id: `AwsSolutions-IAM5[Action::${a}]`,
        reason: 'CDK grants its deployment handler read on the asset and write on the target bucket only.',
      })),
      {
        id: resourceFinding(stack, 'AwsSolutions-IAM5', asset.bucket.arnForObjects('*')),
        reason: 'Reads the bundle asset from the CDK bootstrap bucket; asset keys are content hashes.',
      },
      {
        id: resourceFinding(stack, 'AwsSolutions-IAM5', this.bucket.arnForObjects('*')),
        reason: 'Writes under the policy prefix of the bundle bucket, which holds nothing else.',
      },
    );
  }

  /** `s3://bucket/key`, the form CLOUDORCH_POLICY_BUNDLE_S3 takes. */
  get s3Url(): string {
    return `s3://${this.bucket.bucketName}/${this.objectKey}`;
  }

  /** GetObject on the bundle object only (no listing, no other keys). */
  grantReadBundle(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['s3:GetObject'],
      resourceArns: [this.bucket.arnForObjects(this.objectKey)],
    });
  }
}
