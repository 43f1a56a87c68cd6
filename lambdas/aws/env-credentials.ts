/**
 * The credentials Lambda gives a function in its environment (the function role's), for the calls
 * a function signs itself (signed-http.ts); the SDK's clients read the same variables.
 */
import type { SigningCredentials } from './sigv4.js';

/** No credentials in the environment: outside Lambda, set them (or use the SDK's whole chain). */
export class MissingCredentialsError extends Error {
  override readonly name = 'MissingCredentialsError';
}

/** Reads the variables at every call (a test or a host may change them; Lambda sets them once). */
export function environmentCredentials(
  env: Readonly<Record<string, string | undefined>>,
): () => SigningCredentials {
  return () => {
    const accessKeyId = env['AWS_ACCESS_KEY_ID'];
    const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
    if (!accessKeyId || !secretAccessKey)
      throw new MissingCredentialsError(
        'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (Lambda sets them for the function role)',
      );
    return { accessKeyId, secretAccessKey, sessionToken: env['AWS_SESSION_TOKEN'] || undefined };
  };
}
