/**
 * `@aws-sdk/credential-providers` for the Lambda bundles: the one provider they use,
 * fromTemporaryCredentials (the EKS functions' assumed roles in target accounts). The package's
 * index also reaches fromIni, fromSSO, fromContainerMetadata and the others, whose dynamic imports
 * esbuild turns into chunks even when the code importing them is dropped; those chunks share files
 * with the code a cold load reads and split it into more pieces. The path is the package's own
 * module (it has no export map), resolved from the project's node_modules, where it is a direct
 * dependency; an alias of the package name would also rewrite this subpath.
 */
export { fromTemporaryCredentials } from '../../node_modules/@aws-sdk/credential-providers/dist-es/fromTemporaryCredentials.js';
