#!/usr/bin/env bash
# Builds opa-wasm-build (OPA's wasm compiler alone, pinned by this module's go.mod/go.sum) from the
# Go module proxy into $1 (default: the user cache). The binary is never committed.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VERSION=v1.22.3
OUT="${1:-${CLOUDORCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cloudorch}/opa-wasm-build-$VERSION/bin}"
mkdir -p "$OUT"
cd "$HERE"
# Built to a temporary name and renamed, so an interrupted build never leaves a half binary.
# Go's "downloading" lines are shown only when the build fails, so setup's progress line stays one line.
if [ ! -x "$OUT/opa-wasm-build" ]; then
  if ! out=$(CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o "$OUT/opa-wasm-build.partial" . 2>&1); then
    printf '%s\n' "$out" >&2
    exit 1
  fi
  mv "$OUT/opa-wasm-build.partial" "$OUT/opa-wasm-build"
fi
echo "$OUT/opa-wasm-build"
