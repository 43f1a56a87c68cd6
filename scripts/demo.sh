#!/usr/bin/env bash
# The main job on the embedded default, from a fresh clone: `cloudorch dev --demo` applies the
# examples (one with three node pools), shows them converge, scales one pool out of band and shows
# it corrected, then exits 0.
# Installs only what that needs (scripts/setup-node.sh runtime: Node 24, the CLI's run-time
# packages, esbuild, and OPA's wasm compiler alone), then builds the CLI and the policy bundle.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/setup-node.sh runtime
step "compile the CLI (dist/)" node -e 'import("./scripts/build-dist.mjs").then((m) => m.ensureDist())'
step "build the policy bundle (policies/ to WASM)" node bin/cloudorch.mjs policy build >/dev/null
exec node bin/cloudorch.mjs dev --demo --port 0 "$@"
