/**
 * The bridge binary. Every flag is parsed by flags.ts (unknown ones stop start-up with exit code 2);
 * AWS settings come from the SDK's standard chain (Pod Identity or IRSA credentials, AWS_REGION),
 * the Kubernetes connection from --kubeconfig, KUBECONFIG, or the in-cluster service account.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KubeConfig } from '@kubernetes/client-node';
import { describeError } from './api-errors.js';
import { jsonLog, policyEngineFor, startBridge } from './app.js';
import { FlagError, parseFlags, usage } from './flags.js';

async function main(argv: readonly string[]): Promise<void> {
  if (argv.includes('--help')) {
    process.stdout.write(`${usage()}\n`);
    return;
  }
  const flags = parseFlags(argv);
  const kc = new KubeConfig();
  if (flags.kubeconfig) kc.loadFromFile(flags.kubeconfig);
  else kc.loadFromDefault();
  const bridge = await startBridge(flags, {
    kc,
    dynamo: new DynamoDBClient({}),
    engine: policyEngineFor(flags),
    onLostLeadership: () => {
      jsonLog('exiting after losing leadership, so no two replicas write');
      process.exit(1);
    },
  });
  const shutdown = (signal: string) => {
    jsonLog(`${signal}: shutting down`);
    bridge.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        jsonLog(`shutdown failed: ${describeError(err)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof FlagError) {
    process.stderr.write(`cloudorch-bridge: ${err.message}\n${usage()}\n`);
    process.exit(2);
  }
  jsonLog(`start-up failed: ${describeError(err)}`);
  process.exit(1);
});
