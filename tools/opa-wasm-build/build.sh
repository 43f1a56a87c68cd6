#!/usr/bin/env bash
# Builds opa-wasm-build (OPA's wasm compiler alone, pinned by this module's go.mod/go.sum) from the
# Go module proxy into $1 (default: the user cache). The binary is never committed.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VERSION=v1.22.3
[ "$#" -le 1 ] || { echo "usage: $0 [--where | output folder]" >&2; exit 2; }
# The cache folder is named after the OPA version and a hash of this tool's sources, so a changed
# tool is never served by an older build. `--where` prints that folder without building.
# The OPA version go.mod pins and VERSION must agree.
grep -q "github.com/open-policy-agent/opa $VERSION\$" "$HERE/go.mod" || { echo "build.sh VERSION $VERSION is not go.mod's OPA version" >&2; exit 1; }
SOURCES=$(cat "$HERE/main.go" "$HERE/go.mod" "$HERE/go.sum" | sha256sum | cut -c1-12)
DEFAULT="${CLOUDORCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cloudorch}/opa-wasm-build-$VERSION-$SOURCES/bin"
if [ "${1:-}" = --where ]; then echo "$DEFAULT"; exit 0; fi
OUT="${1:-$DEFAULT}"
mkdir -p "$OUT"
# Absolute before the cd below, so a relative folder means the caller's.
OUT="$(cd "$OUT" && pwd)"
cd "$HERE"
# Built to a temporary name and renamed, so an interrupted build never leaves a half binary.
# Go's "downloading" lines are shown only when the build fails, so setup's progress line stays one line.
if [ ! -x "$OUT/opa-wasm-build" ]; then
  if ! out=$(CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -o "$OUT/opa-wasm-build.partial" . 2>&1); then
    printf '%s\n' "$out" >&2
    exit 1
  fi
  mv "$OUT/opa-wasm-build.partial" "$OUT/opa-wasm-build"
fi
echo "$OUT/opa-wasm-build"
