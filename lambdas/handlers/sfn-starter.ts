/** Starts Reconcile executions through the Step Functions API (AWS, or the local endpoint in dev). */
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  type SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { ENV } from '../config.js';
import { PermanentError } from '../core/errors.js';
import type { ExecutionStarter, ExecutionStatus } from './deps.js';

export function sfnStarter(client: SFNClient, stateMachineArn: string | undefined): ExecutionStarter {
  return {
    async start(name, input) {
      // Functions without a state machine may ask about executions but never start one: a missing ARN
      // where one is started is configuration, fixed by a human, not a bug.
      if (!stateMachineArn)
        throw new PermanentError('no state machine is configured: this function cannot start executions', {
          remediation: `Set ${ENV.stateMachine} to the Reconcile state machine's ARN in this function's environment (the deploy stack sets it on the functions that start executions).`,
        });
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
    async status(executionArn): Promise<ExecutionStatus> {
      try {
        const r = await client.send(new DescribeExecutionCommand({ executionArn }));
        if (r.status === 'RUNNING')
          return { state: 'running', ...(r.startDate ? { startedAt: r.startDate.toISOString() } : {}) };
        return { state: 'ended', detail: r.status ?? 'no status' };
      } catch (err) {
        if (err instanceof ExecutionDoesNotExist) return { state: 'ended', detail: 'no such execution' };
        return {
          state: 'unknown',
          detail: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        };
      }
    },
  };
}
