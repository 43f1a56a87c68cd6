/**
 * The sweep shard function, invoked asynchronously: the client of capability `lambda:invoke-shard`.
 * Only the dispatcher's bundle carries the Lambda SDK client.
 */
import { InvocationType, InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { ENV } from '../../config.js';
import { TransientError } from '../../core/errors.js';
import { required, sdkOptions, type Wiring } from '../compose.js';
import type { ShardInvoker } from '../deps.js';

export function lambdaShardInvoker(w: Wiring): ShardInvoker {
  const functionName = required(w.env, ENV.sweepShardFunction);
  const client = w.own(new LambdaClient(sdkOptions(w)));
  return {
    async invoke(payload) {
      const out = await client.send(
        new InvokeCommand({
          FunctionName: functionName,
          InvocationType: InvocationType.Event,
          Payload: Buffer.from(JSON.stringify(payload)),
        }),
      );
      // An accepted asynchronous invocation answers 202; anything else was not queued.
      if (out.StatusCode !== 202)
        throw new TransientError(`${functionName} did not queue the shard run (status ${out.StatusCode})`, {
          remediation: 'Nothing to do: the next sweep period hands the shards over again.',
        });
    },
  };
}
