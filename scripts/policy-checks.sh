#!/usr/bin/env bash
# Policy checks for the test command: formatting, strict compile, unit tests with a coverage
# threshold (policies/check.ts, the same checks as `cloudorch policy test`), then the WASM bundle
# build. Any failure stops the run with opa's own message.
# Expects opa and tsx on PATH (scripts/setup.sh puts them there).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tsx policies/check.ts
echo "opa build -t wasm -e cloudorch/decision"
tsx policies/build.ts
