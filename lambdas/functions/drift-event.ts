/** Lambda entry: EventBridge rule on CloudTrail records of EKS API calls. */
import { lazyEksReader } from '../handlers/clients/eks-at-first-call.js';
import { lazySfnExecutions } from '../handlers/clients/sfn-at-first-call.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { withLogContext } from '../handlers/telemetry.js';
import { type CloudTrailEksEvent, onDriftEvent } from '../handlers/triggers/drift-event.js';

composeFunction('driftEvent', {
  store: dynamoStore,
  provider: lazyEksReader,
  executions: lazySfnExecutions,
});
export const handler = (event: CloudTrailEksEvent) =>
  withLogContext({ step: 'drift-event' }, () => onDriftEvent(event));
