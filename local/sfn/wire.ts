/**
 * The AWS JSON 1.0 wire vocabulary the local Step Functions operations share: the error shape,
 * request-field readers that fail with the codes AWS uses, and timestamps as epoch seconds.
 */

export type SfnErrorCode =
  | 'ExecutionAlreadyExists'
  | 'ExecutionDoesNotExist'
  | 'InvalidArn'
  | 'InvalidExecutionInput'
  | 'InvalidName'
  | 'InvalidToken'
  | 'InvalidOutput'
  | 'TaskDoesNotExist'
  | 'TaskTimedOut'
  | 'StateMachineDoesNotExist'
  | 'ValidationException'
  | 'SerializationException'
  | 'UnknownOperationException'
  | 'InternalFailure';

/** A Step Functions API error, sent as `{"__type": code, "message": ...}`. */
export class SfnServiceError extends Error {
  override readonly name = 'SfnServiceError';
  constructor(
    readonly code: SfnErrorCode,
    message: string,
    readonly httpStatus = 400,
  ) {
    super(message);
  }
}

/** A request or response body: one JSON object. */
export type Body = Record<string, unknown>;

export function optionalString(body: Body, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new SfnServiceError('SerializationException', `${field} must be a string`);
  return v;
}

export function requiredString(body: Body, field: string): string {
  const v = optionalString(body, field);
  if (v === undefined) {
    throw new SfnServiceError(
      'ValidationException',
      `1 validation error detected: Value null at '${field}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return v;
}

export function maxLength(field: string, value: string | undefined, max: number): void {
  if (value !== undefined && value.length > max) {
    throw new SfnServiceError(
      'ValidationException',
      `1 validation error detected: Value at '${field}' failed to satisfy constraint: Member must have length less than or equal to ${max}`,
    );
  }
}

export function toEpochSeconds(ms: number): number {
  return ms / 1000;
}

/** maxResults as AWS takes it: 0-1000, where 0 or absent means the default page of 100. */
export function pageSize(body: Body): number {
  const maxResults = body['maxResults'] ?? 0;
  if (
    typeof maxResults !== 'number' ||
    !Number.isInteger(maxResults) ||
    maxResults < 0 ||
    maxResults > 1000
  ) {
    throw new SfnServiceError('ValidationException', 'maxResults must be an integer between 0 and 1000');
  }
  return maxResults === 0 ? 100 : maxResults;
}
