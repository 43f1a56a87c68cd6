// node:zlib for the Lambda bundles, read as CommonJS: see BUILTIN_SHIMS in ../function-bundling.mjs.
// zlib (about 4 ms to load) loads at its first call, not at every cold start. Its importers: the
// SDK's Crc32Node, which asks at load whether `zlib.crc32` exists and is called for event-stream
// checksums (no function reads an event stream), and the policy function's bundle reader
// (gunzipSync, on the policy bundle it reads at its first invocation). Only what they call is
// here: the bundle-load test fails when another module imports node:zlib or an importer calls
// something else, so the list grows with use.
let zlib;
const load = () => {
  zlib ??= process.getBuiltinModule('node:zlib');
  return zlib;
};
module.exports = {
  crc32: (data, value) => load().crc32(data, value),
  gunzipSync: (buffer, options) => load().gunzipSync(buffer, options),
};
