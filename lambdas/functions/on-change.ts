/** Lambda entry: DynamoDB stream of the desired-state table (filtered to spec/generation/deletion). */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { sfnCallbacks, sfnExecutions } from '../handlers/clients/sfn.js';
import { composeFunction } from '../handlers/compose.js';
import { withLogContext } from '../handlers/telemetry.js';
import { onChange } from '../handlers/triggers/on-change.js';

composeFunction('onChange', { executions: sfnExecutions, callbacks: sfnCallbacks });
export const handler = (event: DynamoDBStreamEvent) =>
  withLogContext({ step: 'on-change' }, () => onChange(event));
