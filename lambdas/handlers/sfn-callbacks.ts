/** Answers callback Tasks through the Step Functions API (AWS, or the local endpoint in dev). */
import {
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  type SFNClient,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import type { TaskCallbacks } from './deps.js';

/** The task is no longer open (answered, timed out, its execution ended): the wait was over already. */
function closed(err: unknown): boolean {
  return err instanceof TaskDoesNotExist || err instanceof TaskTimedOut;
}

async function send(call: () => Promise<unknown>): Promise<{ open: boolean }> {
  try {
    await call();
    return { open: true };
  } catch (err) {
    if (closed(err)) return { open: false };
    throw err;
  }
}

export function sfnCallbacksOn(client: SFNClient): TaskCallbacks {
  return {
    succeed: (taskToken, output) =>
      send(() => client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }))),
    // SendTaskFailure's limits: error 256 characters, cause 32768.
    fail: (taskToken, error, cause) =>
      send(() =>
        client.send(
          new SendTaskFailureCommand({
            taskToken,
            error: error.slice(0, 256),
            cause: cause.slice(0, 32_768),
          }),
        ),
      ),
  };
}
