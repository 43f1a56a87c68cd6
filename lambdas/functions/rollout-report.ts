/** Lambda entry of the Rollout machine's bookkeeping: the rollout table and the notification topic. */
import { snsNotifier } from '../handlers/clients/notify.js';
import { dynamoRollouts } from '../handlers/clients/rollouts.js';
import { composeFunction } from '../handlers/compose.js';
import { rolloutReportStep } from '../handlers/rollout/report.js';
import { wrapRolloutStep } from '../handlers/rollout/wrap.js';

composeFunction('rolloutReport', { rollouts: dynamoRollouts, notifier: snsNotifier });
export const handler = wrapRolloutStep('rolloutReport', rolloutReportStep);
