/**
 * A target's rollouts: the RolloutStore on the stack's rollout table and a RolloutControl over the
 * Rollout state machine, made on first use. A target without them (a stack not given its rollout
 * outputs, a dev from before rollouts) fails the rollout commands only, naming the missing setting.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { ENV } from '../../lambdas/config.js';
import { dynamoRollouts } from '../../lambdas/handlers/clients/rollouts.js';
import { compose, sdkOptions, type WiringInput } from '../../lambdas/handlers/compose.js';
import type { ExecutionStarter } from '../../lambdas/handlers/deps.js';
import type { RolloutControl } from '../../lambdas/handlers/rollout/control.js';
import { reconcileWith } from '../../lambdas/handlers/triggers/reconcile-now.js';
import type { RolloutStore } from '../../lambdas/store/rollouts.js';
import type { DesiredStateStore } from '../../lambdas/store/types.js';

export interface TargetRollouts {
  /** The rollout table's store; throws RolloutSettingError when the target names no rollout table. */
  store(): RolloutStore;
  /** Start, approve, resume, abort: needs the rollout table and the Rollout state machine. */
  control(): RolloutControl;
}

/** The target does not say where its rollouts are. */
export class RolloutSettingError extends Error {
  override readonly name = 'RolloutSettingError';
}

/** A failed cluster of a halted rollout could not be reconciled, so the resume did not start. */
export class ReconcileBeforeResumeError extends Error {
  override readonly name = 'ReconcileBeforeResumeError';
}

/** Where a setting is given, for the error naming it when it is missing. */
export interface RolloutSettings {
  readonly table?: string;
  readonly stateMachineArn?: string;
  /** How this kind of target is told (flags and env for a stack, a restart for an old dev). */
  readonly howToSet: (setting: 'table' | 'stateMachineArn') => string;
}

/** For a deployed stack: the flag, the variable and the named target's field of each setting. */
export const stackHowToSet = (setting: 'table' | 'stateMachineArn'): string =>
  setting === 'table'
    ? `give the stack output RolloutTableName as --rollout-table, ${ENV.rolloutTable}, or the target's rolloutTable (cloudorch config set-target NAME --rollout-table …)`
    : `give the stack output RolloutStateMachineArn as --rollout-state-machine-arn, ${ENV.rolloutStateMachine}, or the target's rolloutStateMachineArn (cloudorch config set-target NAME --rollout-state-machine-arn …)`;

/** What a rollout's resume needs of the target's reconcile path. */
export interface ReconcilePath {
  readonly store: Pick<DesiredStateStore, 'inspect'>;
  readonly executions: ExecutionStarter;
}

/**
 * `cloudorch reconcile`'s path for one cluster: an execution started, or one already running; a
 * lease whose execution cannot be checked is an error, never taken for a started reconcile.
 */
async function reconcileOne(path: ReconcilePath, id: string): Promise<void> {
  const res = await reconcileWith(path.store, path.executions, id, new Date());
  if (res.started || res.running) return;
  throw new ReconcileBeforeResumeError(
    `cannot reconcile ${id} before the resume: its lease is held by ${res.holder} until ${res.until} and its execution cannot be checked${res.detail ? ` (${res.detail})` : ''}`,
  );
}

export function targetRollouts(
  wiring: WiringInput,
  settings: RolloutSettings,
  reconcile: ReconcilePath,
  closers: (() => void)[],
): TargetRollouts {
  let store: RolloutStore | undefined;
  const need = (setting: 'table' | 'stateMachineArn', what: string): string => {
    const value = settings[setting];
    if (!value)
      throw new RolloutSettingError(`rollouts need the stack's ${what}: ${settings.howToSet(setting)}`);
    return value;
  };
  const storeOf = (): RolloutStore => {
    if (store) return store;
    const table = need('table', 'rollout table');
    const made = compose(
      { rollouts: dynamoRollouts },
      { ...wiring, env: { ...wiring.env, [ENV.rolloutTable]: table } },
    );
    closers.push(made.close);
    store = made.deps.rollouts;
    return store;
  };
  return {
    store: storeOf,
    control: () => {
      const rollouts = storeOf();
      const stateMachineArn = need('stateMachineArn', 'Rollout state machine');
      const sfn = new SFNClient(sdkOptions(wiring, 'sfn'));
      closers.push(() => sfn.destroy());
      return {
        rollouts,
        sfn,
        stateMachineArn,
        now: () => new Date(),
        reconcile: (id) => reconcileOne(reconcile, id),
      };
    },
  };
}
