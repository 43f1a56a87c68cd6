/** Starts Reconcile executions through the Step Functions API (AWS, or the local endpoint in dev). */
import { ExecutionAlreadyExists, type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { ExecutionStarter } from './deps.js';

export function sfnStarter(client: SFNClient, stateMachineArn: string): ExecutionStarter {
  return {
    async start(name, input) {
      try {
        const r = await client.send(
          new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }),
        );
        return { started: true, ...(r.executionArn ? { executionArn: r.executionArn } : {}) };
      } catch (err) {
        // Same name already used: a duplicate trigger, absorbed by design.
        if (err instanceof ExecutionAlreadyExists) return { started: false };
        throw err;
      }
    },
  };
}
