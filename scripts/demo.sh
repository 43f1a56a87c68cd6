#!/usr/bin/env bash
# The main job on the embedded default, from a fresh clone: `cloudorch dev --demo` applies the
# examples, shows them converge, drifts one out of band and shows it corrected, then exits 0.
# Installs only what that needs (scripts/setup-node.sh runtime: Node 24 and the CLI's run-time
# packages); the policies come as the committed prebuilt bundle, so no opa is built.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/setup-node.sh runtime
step "compile the CLI (dist/)" node -e 'import("./scripts/build-dist.mjs").then((m) => m.ensureDist())'
exec node bin/cloudorch.mjs dev --demo --port 0 "$@"
