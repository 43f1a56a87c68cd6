// node:stream for the Lambda bundles, read as CommonJS: see BUILTIN_SHIMS in ../function-bundling.mjs.
module.exports = process.getBuiltinModule('node:stream');
