/** Lambda entry: DynamoDB stream of the desired-state table (filtered to spec/generation/deletion). */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { configureFromEnv } from '../handlers/env-deps.js';
import { withLogContext } from '../handlers/telemetry.js';
import { onChange } from '../handlers/triggers/on-change.js';

configureFromEnv();
export const handler = (event: DynamoDBStreamEvent) =>
  withLogContext({ step: 'on-change' }, () => onChange(event));
