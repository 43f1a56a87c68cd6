/** How the provider runs one EKS call: every error leaves classified, and "gone" can be an answer. */
import { classifyAwsError, NotFoundError } from '../core/errors.js';

export async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw classifyAwsError(e);
  }
}

/** Runs `fn`, turning "not found" into `undefined`; other errors propagate. */
export async function unlessGone<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call(fn);
  } catch (e) {
    if (e instanceof NotFoundError) return undefined;
    throw e;
  }
}
