#!/usr/bin/env bash
# The main job on the embedded default, from a fresh clone.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/setup.sh
rc=0
node bin/cloudorch.mjs plan -f examples/ || rc=$?
# `plan` exits 2 when there are changes to make: that is a successful preview.
[ "$rc" -eq 0 ] || [ "$rc" -eq 2 ]
