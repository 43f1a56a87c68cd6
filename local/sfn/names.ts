/** State machine and execution ARNs, and the execution-name rules of Standard workflows. */
import { SfnServiceError } from './wire.js';

export const STATE_MACHINE_ARN = /^arn:(aws[a-z-]*):states:([a-z0-9-]+):(\d{12}):stateMachine:([^:]+)$/;
export const EXECUTION_ARN = /^arn:(aws[a-z-]*):states:([a-z0-9-]+):(\d{12}):execution:([^:]+):([^:]+)$/;
// Characters AWS forbids in execution names (API reference, StartExecution `name`): whitespace,
// < > { } [ ] ? * " # % \ ^ | ~ ` $ & , ; : /, plus the code points checked in badCodePoint.
const FORBIDDEN_NAME_CHARS = /[\s<>{}[\]?*"#%\\^|~`$&,;:/]/;

/** Control characters (U+0000-001F, U+007F-009F), U+FFFE-FFFF, lone surrogates and U+10FFFF. */
function badCodePoint(name: string): boolean {
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0xfffe || c === 0xffff || c === 0x10ffff) return true;
    if (c >= 0xd800 && c <= 0xdfff) return true;
  }
  return false;
}

/** Validates an execution name as StartExecution does: length first (ValidationException), then characters (InvalidName). */
export function checkExecutionName(name: string): void {
  if (name.length < 1 || name.length > 80) {
    throw new SfnServiceError(
      'ValidationException',
      `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint: Member must have length between 1 and 80`,
    );
  }
  if (FORBIDDEN_NAME_CHARS.test(name) || badCodePoint(name))
    throw new SfnServiceError('InvalidName', `Invalid Name: '${name}'`);
}
