/** What the planner's convergence stages read and decide (converge.ts runs them in order). */
import type { FieldContext } from './fields.js';
import type { Desired, Impossible, MutatingOperation, UpgradeWarning, Wait } from './types.js';

/** What every stage reads: the field context, the record, and where its calls go. */
export interface PlanContext extends FieldContext {
  readonly d: Desired;
  readonly base: {
    readonly clusterName: string;
    readonly region: string;
    readonly accountId?: string;
  };
}

/**
 * What a stage decided: impossible differences it found, and the step's action if it takes one
 * (`null`: stop with nothing to call). Without `next`, the following stage decides.
 */
export interface Decision {
  readonly impossible?: readonly Impossible[];
  readonly next?: MutatingOperation | Wait | null;
  /** The step goes ahead despite EKS's insights (`readiness: warn`). */
  readonly warnings?: readonly UpgradeWarning[];
}

export type Stage = (x: PlanContext) => Decision | undefined;
