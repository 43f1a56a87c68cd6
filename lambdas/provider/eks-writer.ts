/**
 * The EKS writer: `apply`, the side of the provider the function of capability `eks:write` uses (see
 * eks-provider.ts for the contract and ops.ts for each operation's one call). Apart from the reader,
 * so its bundle carries no observation code.
 */
import type { MutatingOperation } from '../core/plan/types.js';
import type { ApplyResult, ClusterProvider } from '../core/provider.js';
import { call } from './eks-calls.js';
import { EksTargets } from './eks-targets.js';
import { explainDenied } from './errors.js';
import { applyOperation } from './ops.js';

export class EksWriter extends EksTargets implements Pick<ClusterProvider, 'apply'> {
  async apply(op: MutatingOperation): Promise<ApplyResult> {
    try {
      return await call(() => applyOperation(this.client(op.region, op.accountId), op));
    } catch (e) {
      throw explainDenied(op, this.explainAssumeDenied(op.accountId, op.region, e));
    }
  }
}
