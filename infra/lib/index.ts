/**
 * The public entry of CloudOrch's CDK construct, for use in another CDK app: the construct and its
 * props, the ready-made stack, the policy bundle sources and the names a user needs. Everything else
 * in infra/lib is internal and may change without notice.
 */

export {
  DEFAULT_DEFINITION_OPTIONS,
  type DefinitionOptions,
} from '../../lambdas/statemachine/definition.js';
export { type BridgeIrsa, type BridgeRoleProps, POD_IDENTITY_TAGS } from './bridge-role.js';
export { CloudOrch, type CloudOrchProps } from './cloudorch.js';
export { CloudOrchStack, type CloudOrchStackProps, OUTPUT_ENV } from './cloudorch-stack.js';
export { packageVersion, VERSION_TAG } from './package-info.js';
export { BUNDLE_KEY_PREFIX, BUNDLE_OBJECT, PolicyBundle } from './policy-bundle.js';
export {
  type BuildPolicyBundleOptions,
  PolicyBundleSource,
  PolicyBundleUnavailableError,
  preparePolicyAsset,
} from './policy-bundle-source.js';
export {
  DEFAULT_TARGET_ROLE_NAMES,
  TargetAccountsConfigError,
  type TargetRoleNames,
} from './target-access.js';
export {
  type ControlPlaneRoleArns,
  TargetAccountStack,
  type TargetAccountStackProps,
} from './target-account-stack.js';
