// `yaml` for the Lambda bundles: see LAMBDA_REPLACEMENTS in function-bundling.mjs and
// lambdas/policy/builtins.ts. Only the wasm SDK's yaml.* built-ins import it, and no policy built by
// policies/build.ts can call them (the engine refuses a bundle that does).
const unavailable = () => {
  throw new Error(
    'yaml.* built-ins are not in the policy function: build the bundle with `cloudorch policy build`, whose capabilities leave them out',
  );
};
module.exports = { parse: unavailable, stringify: unavailable };
