/**
 * Every Lambda in the catalog, Node 24 on arm64, bundled as infra/bundling/function-bundling.mjs
 * says. In a checkout (the `lambdas/functions` sources beside this package) each is a
 * NodejsFunction bundled locally by esbuild (no Docker) at synth time; in the installed npm package
 * (no sources) each is the bundle prepack built into `dist/functions/<key>/` with the same options,
 * so a checkout never deploys a stale prebuilt bundle. Each function gets its own role holding only
 * its log group; capabilities are granted separately (see capabilities.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { InternalError } from '../../lambdas/core/errors.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';
import { BUILD_FUNCTION, FUNCTION_BUNDLING, FUNCTION_OUTFILE } from '../bundling/function-bundling.mjs';
import { PACKAGE_ROOT } from './package-info.js';

/** The package root (found by its package.json, so a compiled copy of this module finds it too). */
export const PROJECT_ROOT = PACKAGE_ROOT;
const FUNCTIONS_DIR = join(PROJECT_ROOT, 'lambdas', 'functions');
/** Where prepack (scripts/build-functions.mjs) writes each function's bundle: `<key>/index.mjs` and its chunks. */
export const PREBUILT_FUNCTIONS_DIR = join(PROJECT_ROOT, 'dist', 'functions');

/** Everything but the code: the same whichever way the code comes. */
type CommonProps = Omit<lambda.FunctionProps, 'code' | 'handler'>;

/** Functions whose names are well known (used by the CLI and outputs). */
export const FUNCTION_KEYS = Object.keys(FUNCTIONS) as FunctionKey[];

export interface ReconcilerFunctionsProps {
  /** Environment every function gets (table name, defaults, log and metric settings). */
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
  readonly functions: Readonly<Record<FunctionKey, lambda.Function>>;
  readonly roles: Readonly<Record<FunctionKey, iam.Role>>;
  readonly logGroups: Readonly<Record<FunctionKey, logs.LogGroup>>;

  constructor(scope: Construct, id: string, props: ReconcilerFunctionsProps) {
    super(scope, id);
    const functions = {} as Record<FunctionKey, lambda.Function>;
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
      const common: CommonProps = {
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
      };
      functions[key] = functionCode(this, name, key, common);
      roles[key] = role;
      logGroups[key] = logGroup;
    }
    this.functions = functions;
    this.roles = roles;
    this.logGroups = logGroups;
  }
}

/** A function from its source (in a checkout) or, with no sources beside the package, its prebuilt bundle. */
function functionCode(scope: Construct, id: string, key: FunctionKey, common: CommonProps): lambda.Function {
  const entry = join(FUNCTIONS_DIR, FUNCTIONS[key].entry);
  const prebuilt = join(PREBUILT_FUNCTIONS_DIR, key);
  if (!existsSync(entry)) {
    if (!existsSync(join(prebuilt, FUNCTION_OUTFILE)))
      throw new InternalError(`neither ${entry} nor a prebuilt ${join(prebuilt, FUNCTION_OUTFILE)} exists`);
    // FUNCTION_OUTFILE exports `handler`, as NodejsFunction's own output does.
    return new lambda.Function(scope, id, {
      ...common,
      code: lambda.Code.fromAsset(prebuilt),
      handler: 'index.handler',
    });
  }
  const b = FUNCTION_BUNDLING;
  return new nodejs.NodejsFunction(scope, id, {
    ...common,
    entry,
    handler: 'handler',
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
    bundling: {
      forceDockerBundling: false,
      logLevel: b.logLevel as nodejs.LogLevel,
      minify: b.minify,
      sourceMap: b.sourceMap,
      sourcesContent: b.sourcesContent,
      target: b.target,
      format: b.format as nodejs.OutputFormat,
      mainFields: [...b.mainFields],
      externalModules: [...b.externalModules],
      banner: b.banner,
      esbuildArgs: { '--alias': Object.entries(b.alias).map(([from, to]) => `${from}=${to}`) },
      // NodejsFunction writes one file; the shared build replaces it with index.mjs and its chunks
      // (code loaded on demand stays out of the cold load), with source maps relative to the project
      // so asset hashes do not depend on the checkout's folder. Prepack runs the same build.
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (inputDir: string, outputDir: string) => [
          `node "${join(PROJECT_ROOT, BUILD_FUNCTION)}" "${entry}" "${outputDir}" "${inputDir}"`,
        ],
      },
    },
  });
}
