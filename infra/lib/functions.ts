/**
 * Every Lambda in the catalog as a NodejsFunction bundled locally by esbuild (no Docker): Node 24,
 * arm64, minified ESM with source maps, the AWS SDK bundled at the pinned versions the tests ran
 * (the runtime's own SDK copy may be older). Each function gets its own role holding only its
 * log group; capabilities are granted separately (see capabilities.ts).
 */
import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';
import { PACKAGE_ROOT } from './package-info.js';

/** The package root (found by its package.json, so a compiled copy of this module finds it too). */
export const PROJECT_ROOT = PACKAGE_ROOT;
const PORTABLE_SOURCEMAP = join(PROJECT_ROOT, 'infra', 'bundling', 'portable-sourcemap.mjs');
const FUNCTIONS_DIR = join(PROJECT_ROOT, 'lambdas', 'functions');

/** Functions whose names are well known (used by the CLI and outputs). */
export const FUNCTION_KEYS = Object.keys(FUNCTIONS) as FunctionKey[];

export interface ReconcilerFunctionsProps {
  /** Environment every function gets (table name, defaults, Powertools settings). */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * Retention of each function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /** Reserved concurrency per function. @default none (unreserved) */
  readonly reservedConcurrency?: Partial<Record<FunctionKey, number>>;
}

export class ReconcilerFunctions extends Construct {
  readonly functions: Readonly<Record<FunctionKey, nodejs.NodejsFunction>>;
  readonly roles: Readonly<Record<FunctionKey, iam.Role>>;
  readonly logGroups: Readonly<Record<FunctionKey, logs.LogGroup>>;

  constructor(scope: Construct, id: string, props: ReconcilerFunctionsProps) {
    super(scope, id);
    const functions = {} as Record<FunctionKey, nodejs.NodejsFunction>;
    const roles = {} as Record<FunctionKey, iam.Role>;
    const logGroups = {} as Record<FunctionKey, logs.LogGroup>;
    for (const key of FUNCTION_KEYS) {
      const spec = FUNCTIONS[key];
      const name = key[0]!.toUpperCase() + key.slice(1);
      const logGroup = new logs.LogGroup(this, `${name}Logs`, {
        retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      // Own role without AWSLambdaBasicExecutionRole: it may write to its own log group only.
      const role = new iam.Role(this, `${name}Role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `CloudOrch ${key}: ${spec.description}`,
      });
      logGroup.grantWrite(role);
      functions[key] = new nodejs.NodejsFunction(this, name, {
        entry: join(FUNCTIONS_DIR, spec.entry),
        handler: 'handler',
        description: spec.description,
        runtime: lambda.Runtime.NODEJS_24_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: spec.memoryMb,
        timeout: Duration.seconds(spec.timeoutSeconds),
        role,
        logGroup,
        ...(props.reservedConcurrency?.[key] !== undefined
          ? { reservedConcurrentExecutions: props.reservedConcurrency[key] }
          : {}),
        environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
        projectRoot: PROJECT_ROOT,
        depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
        bundling: {
          forceDockerBundling: false,
          // Sizes are checked by the bundle budget test; esbuild's size warnings are noise here.
          logLevel: nodejs.LogLevel.ERROR,
          minify: true,
          sourceMap: true,
          sourcesContent: false,
          target: 'node24',
          format: nodejs.OutputFormat.ESM,
          mainFields: ['module', 'main'],
          externalModules: [],
          banner: "import{createRequire}from'module';const require=createRequire(import.meta.url);",
          // Source map paths relative to the project, so asset hashes do not depend on the checkout's folder.
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir: string, outputDir: string) => [
              `node "${PORTABLE_SOURCEMAP}" "${join(outputDir, 'index.mjs.map')}" "${inputDir}"`,
            ],
          },
        },
      });
      roles[key] = role;
      logGroups[key] = logGroup;
    }
    this.functions = functions;
    this.roles = roles;
    this.logGroups = logGroups;
  }
}
