/**
 * Policy errors, one class per failure so callers branch on `instanceof` or `name`, never on message
 * text. None of them is ever turned into an allow: the engine maps each to a deny.
 */
export abstract class PolicyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** `opa` rejected the policies (syntax, type, strict or capability error); `output` is opa's own text. */
export class PolicyBuildError extends PolicyError {
  override readonly name = 'PolicyBuildError';
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(message);
  }
}

/** The bundle is missing a part, is corrupt, or its WebAssembly module does not load. */
export class PolicyBundleError extends PolicyError {
  override readonly name = 'PolicyBundleError';
}

/** The bundle could not be fetched (missing file, S3 error, nothing configured). */
export class BundleSourceError extends PolicyError {
  override readonly name = 'BundleSourceError';
}

/** The policy returned something that is not a well-formed, self-consistent decision. */
export class PolicyDecisionError extends PolicyError {
  override readonly name = 'PolicyDecisionError';
}
