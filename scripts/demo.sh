#!/usr/bin/env bash
# The main job on the embedded default, from a fresh clone: `cloudorch dev --demo` applies the
# examples, shows them converge, drifts one out of band and shows it corrected, then exits 0.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/setup.sh
exec node bin/cloudorch.mjs dev --demo --port 0 "$@"
