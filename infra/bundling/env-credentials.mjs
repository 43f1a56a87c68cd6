/**
 * The SDK's default credential provider in the Lambda bundles: the environment only. Lambda puts the
 * function role's credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, so
 * the rest of the SDK's chain (shared files, SSO, process, web identity, container and instance
 * metadata, with the STS and SSO clients they bring) never runs there. Bundled, that chain's code
 * sat in the chunks a cold load reads, because esbuild places code by the files that reach it, and
 * the SDK's protocol index reaches the STS client's query protocol from every client. Aliased for
 * `@aws-sdk/credential-provider-node` in function-bundling.mjs; `cloudorch dev`, the CLI and the
 * bridge keep the SDK's whole chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

const REMEDIATION =
  'A CloudOrch Lambda bundle reads credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY ' +
  '(and AWS_SESSION_TOKEN), which Lambda sets for the function role; run it in Lambda, or set them';

/** The name and signature every SDK client's runtime config imports (`credentialDefaultProvider`). */
export const defaultProvider =
  (init = {}) =>
  async () => {
    try {
      return await fromEnv(init)();
    } catch (e) {
      // The SDK's own error (a CredentialsProviderError), its message completed with the remedy.
      if (e instanceof Error) e.message = `${e.message} ${REMEDIATION}.`;
      throw e;
    }
  };
