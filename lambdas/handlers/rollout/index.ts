/** Rollout step key -> wrapped handler: the one map the local runner uses (Lambda entries import one). */
import type { RolloutFunctionKey } from '../../statemachine/rollout-definition.js';
import { rolloutApplyStep } from './apply.js';
import { rolloutPlanStep } from './plan.js';
import { rolloutReportStep } from './report.js';
import { rolloutWatchStep } from './watch.js';
import { wrapRolloutStep } from './wrap.js';

const HANDLERS = {
  rolloutPlan: rolloutPlanStep,
  rolloutApply: rolloutApplyStep,
  rolloutWatch: rolloutWatchStep,
  rolloutReport: rolloutReportStep,
} as const;

export function runRolloutStep(key: RolloutFunctionKey): (input: unknown) => Promise<unknown> {
  return wrapRolloutStep(key, HANDLERS[key] as (input: unknown) => Promise<unknown>);
}
