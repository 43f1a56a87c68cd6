#!/usr/bin/env bash
# Policy checks for the test command: formatting, strict compile, unit tests with a coverage
# threshold, then the WASM bundle build. Any failure stops the run with opa's own message.
# Expects opa and tsx on PATH (scripts/setup.sh puts them there).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

POLICIES=policies
COVERAGE_THRESHOLD=90
# The build output folder holds JSON (capabilities) that must not be loaded as policy data.
IGNORE=(--ignore build)

echo "opa fmt"
if ! opa fmt --list --fail "$POLICIES"; then
  echo "policies are not opa-fmt formatted: run 'opa fmt -w $POLICIES'" >&2
  exit 1
fi

echo "opa check --strict"
opa check --strict "${IGNORE[@]}" "$POLICIES"

echo "opa test"
opa test "${IGNORE[@]}" "$POLICIES"

mkdir -p "$POLICIES/build"
report="$POLICIES/build/coverage.json"
if ! opa test "${IGNORE[@]}" --coverage --threshold "$COVERAGE_THRESHOLD" "$POLICIES" >"$report"; then
  echo "policy coverage is below ${COVERAGE_THRESHOLD}% (report: $report)" >&2
  exit 1
fi
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
console.log(`coverage ${r.coverage.toFixed(1)}% (threshold ${process.argv[2]}%)`);' "$report" "$COVERAGE_THRESHOLD"

echo "opa build -t wasm -e cloudorch/decision"
tsx policies/build.ts
