/**
 * The EKS provider's options, for the clients of capabilities `eks:read` (eks-reader.ts) and
 * `eks:write` (eks-writer.ts), and of both (eks-provider.ts: the CLI and `cloudorch dev`). Throttled attempts become
 * the EksThrottled metric, and a configured rate limits every HTTP attempt per (account, region):
 * with a coordination table, one budget shared by every function and instance (slot-pool.ts);
 * without one (the CLI's `plan`), a limit of this process alone.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ENV, METRIC } from '../../config.js';
import { PermanentError } from '../../core/errors.js';
import { claimSettings, slotSpacingMs } from '../../core/rate-slots.js';
import type { EksProviderOptions } from '../../provider/eks-targets.js';
import { BudgetClaims } from '../../store/budget-claims.js';
import { EksBudgetExhaustedError } from '../../store/errors.js';
import { envNumber, sdkOptions, type Wiring } from '../compose.js';
import { slotPools } from '../slot-pool.js';
import { emit } from '../telemetry.js';
import { perSecondLimiter } from '../token-bucket.js';

type BeforeAttempt = (region: string, account: string) => Promise<void>;

/** The shared budget of every (account, region), claimed in the coordination table. */
export function sharedBudget(w: Wiring, perSecond: number, tableName: string): BeforeAttempt {
  if (!(perSecond >= 1))
    throw new PermanentError(`a rate limit needs at least 1 call per second, got ${perSecond}`, {
      remediation: `Set ${ENV.eksCallsPerSecond} (the stack's EKS call rate) to 1 or more.`,
    });
  const claims = new BudgetClaims({
    client: w.own(new DynamoDBClient(sdkOptions(w, 'dynamodb'))),
    tableName,
    spacingMs: slotSpacingMs(perSecond),
  });
  return slotPools({
    ...claimSettings(w.functionKey, perSecond),
    claim: async (account, region, k, horizonMs) => {
      try {
        return await claims.claim(account, region, k, horizonMs);
      } catch (err) {
        if (err instanceof EksBudgetExhaustedError)
          emit(METRIC.EksBudgetExhausted, 1, { Account: account, Region: region });
        throw err;
      }
    },
    isRefusal: (err) => err instanceof EksBudgetExhaustedError,
    // The fleet's waiting in one series; per (account, region) only when a claim waited a second or
    // more (contention): a series per dimension set is billed, and most claims barely wait.
    onWait: (account, region, seconds) => {
      emit(METRIC.EksBudgetWaitSeconds, seconds, {}, 'Seconds');
      if (seconds >= 1)
        emit(METRIC.EksBudgetWaitSeconds, seconds, { Account: account, Region: region }, 'Seconds');
    },
  });
}

function rateLimit(w: Wiring): BeforeAttempt | undefined {
  // Any number reaches the limiter, which refuses a rate below 1/s by name (0 or unset: no limit).
  const rate = envNumber(w.env, ENV.eksCallsPerSecond, Number.NEGATIVE_INFINITY);
  if (!rate) return undefined;
  const table = w.env[ENV.coordinationTable] || undefined;
  if (table) return sharedBudget(w, rate, table);
  const perKey = perSecondLimiter(rate);
  return (region, account) => perKey(`${account}#${region}`);
}

/** The provider's options in a function: its target role, the stack's account, the EKS budget, metrics. */
export function eksOptions(w: Wiring): EksProviderOptions {
  const local = w.endpoints;
  const targetRoleName = w.env[ENV.targetRoleName] || undefined;
  const ownAccountId = w.env[ENV.ownAccountId] || undefined;
  const externalId = w.env[ENV.targetExternalId] || undefined;
  const beforeAttempt = rateLimit(w);
  return {
    env: w.env,
    ...(targetRoleName ? { targetRoleName } : {}),
    ...(ownAccountId ? { ownAccountId } : {}),
    ...(externalId ? { externalId } : {}),
    onThrottle: (region, account) => emit(METRIC.EksThrottled, 1, { Account: account, Region: region }),
    ...(beforeAttempt ? { beforeAttempt } : {}),
    ...(local ? { endpoint: local.eks, credentials: local.credentials } : {}),
    ...(local?.eksRetry ? { retry: local.eksRetry } : {}),
  };
}
