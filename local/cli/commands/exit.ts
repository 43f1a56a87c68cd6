/** Exit codes, documented in `cloudorch --help`, `cloudorch plan --help` and the README. */
export const EXIT = {
  /** Success; for `plan`: no changes. */
  ok: 0,
  /** An error (bad input, unreachable target, failed call). Details on stderr. */
  error: 1,
  /** `plan` only: there are changes to make and policy allows them. */
  changes: 2,
  /** `plan` only: changes policy denies (or cannot judge), or differences that cannot be applied. */
  blocked: 3,
} as const;

/** One text for both help screens, so they cannot disagree with each other or with EXIT. */
export const PLAN_EXIT_HELP = `plan exit codes: ${EXIT.ok} no changes, ${EXIT.changes} changes that policy allows, ${EXIT.blocked} changes denied by policy or impossible to apply, ${EXIT.error} error`;
