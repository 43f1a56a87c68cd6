/**
 * The EKS provider: the client of capabilities `eks:read` and `eks:write`. Throttled attempts become
 * the EksThrottled metric, and a configured rate limits every HTTP attempt per region.
 */
import { ENV, METRIC } from '../../config.js';
import { EksProvider } from '../../provider/eks-provider.js';
import { envNumber, type Wiring } from '../compose.js';
import { emit } from '../telemetry.js';
import { perSecondLimiter } from '../token-bucket.js';

export function eksProvider(w: Wiring): EksProvider {
  // Any number reaches the limiter, which refuses a rate below 1/s by name (0 or unset: no limit).
  const rate = envNumber(w.env, ENV.eksCallsPerSecond, Number.NEGATIVE_INFINITY);
  const local = w.endpoints;
  const targetRoleName = w.env[ENV.targetRoleName] || undefined;
  const ownAccountId = w.env[ENV.ownAccountId] || undefined;
  const externalId = w.env[ENV.targetExternalId] || undefined;
  const provider = new EksProvider({
    env: w.env,
    ...(targetRoleName ? { targetRoleName } : {}),
    ...(ownAccountId ? { ownAccountId } : {}),
    ...(externalId ? { externalId } : {}),
    onThrottle: (region) => emit(METRIC.EksThrottled, 1, { Region: region }),
    ...(rate ? { beforeAttempt: perSecondLimiter(rate) } : {}),
    ...(local ? { endpoint: local.eks, credentials: local.credentials } : {}),
    ...(local?.eksRetry ? { retry: local.eksRetry } : {}),
  });
  w.own(provider.clients);
  return provider;
}
