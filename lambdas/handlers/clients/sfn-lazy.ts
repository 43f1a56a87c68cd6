/**
 * Step Functions loaded at the first call, for the functions most of whose runs never call it: a
 * sweep shard starts an execution only for a cluster that needs one, the drift-event function only
 * for a change someone else made to a managed cluster (CloudOrch's own calls arrive too), and the
 * lease step (like the shard) asks about an execution only when another holds the lease. Their cold load then does not
 * read the client (docs/performance.md, "Bundles"); one client serves every later call.
 */
import type { Wiring } from '../compose.js';
import type { ExecutionStarter } from '../deps.js';

export function lazySfnExecutions(w: Wiring): ExecutionStarter {
  let starter: Promise<ExecutionStarter> | undefined;
  const get = () => {
    starter ??= import('./sfn.js').then((m) => m.sfnExecutions(w));
    return starter;
  };
  return {
    start: async (name, input) => (await get()).start(name, input),
    status: async (executionArn) => (await get()).status(executionArn),
  };
}
