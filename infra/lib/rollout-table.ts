/**
 * The rollout table: one item per CloudRollout (`<namespace>/<name>`: its spec, generation, status and
 * the task token of a stage waiting for approval) and one per cluster a running rollout holds
 * (`lock#<cluster id>`), see lambdas/store/rollouts.ts. Kept apart from the desired-state table so
 * that no reconciler function, and no spec writer, can reach a rollout's state or its locks.
 *
 * - Point-in-time recovery, deletion protection and RETAIN, as the desired-state table: a lost
 *   record loses a rollout's progress and its pending approvals, and a lost lock lets a second
 *   rollout onto a cluster.
 * - No stream and no TTL: nothing reacts to these writes, and locks are given back by the rollout
 *   that holds them, never by expiry.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { keyedTable } from './table.js';

export interface RolloutTableProps {
  /** @default RemovalPolicy.RETAIN (rollouts and their locks outlive the stack; deletion protection is on too) */
  readonly removalPolicy?: RemovalPolicy;
}

export class RolloutTable extends Construct {
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: RolloutTableProps = {}) {
    super(scope, id);
    this.table = keyedTable(this, props.removalPolicy ? { removalPolicy: props.removalPolicy } : {});
  }
}
