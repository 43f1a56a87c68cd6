/** ClassifyError: turns what Step Functions caught into a failure with a kind and a remediation. */
import type { ClassifiedFailure, ExecutionState } from '../contracts.js';
import { readCaughtError } from '../envelope.js';
import { emit, METRIC } from '../telemetry.js';

export async function classifyErrorStep(state: ExecutionState): Promise<ClassifiedFailure> {
  const f = readCaughtError(state.error);
  emit(METRIC.ReconcileErrors, 1, { Kind: f.kind });
  return f;
}
