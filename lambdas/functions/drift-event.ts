/** Lambda entry: EventBridge rule on CloudTrail records of EKS API calls. */
import { configureFromEnv } from '../handlers/env-deps.js';
import { withLogContext } from '../handlers/telemetry.js';
import { type CloudTrailEksEvent, onDriftEvent } from '../handlers/triggers/drift-event.js';

configureFromEnv();
export const handler = (event: CloudTrailEksEvent) =>
  withLogContext({ step: 'drift-event' }, () => onDriftEvent(event));
