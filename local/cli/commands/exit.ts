/** Exit codes, documented in `cloudorch --help` and the README. */
export const EXIT = {
  /** Success; for `plan`: no changes. */
  ok: 0,
  /** An error (bad input, unreachable target, failed call). Details on stderr. */
  error: 1,
  /** `plan` only: there are changes to make. */
  changes: 2,
} as const;
