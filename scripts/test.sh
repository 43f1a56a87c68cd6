#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what it needs (pinned, cached), then runs
# type-check, lint, policy checks and vitest. Extra arguments go to vitest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/setup.sh

step() { printf '\n== %s\n' "$*"; }
step "node $(node --version), opa $(opa version | head -1 | awk '{print $2}')"
step "type-check"; tsc -p tsconfig.json
step "lint"; biome check .
if [ -x scripts/policy-checks.sh ]; then step "policies"; scripts/policy-checks.sh; fi
step "vitest"
mkdir -p test-results
rc=0
vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@" || rc=$?
# One plain closing line with the counts, read from vitest's own JSON report.
node -e '
  const r = JSON.parse(require("node:fs").readFileSync("test-results/vitest.json", "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
' || true
exit "$rc"
