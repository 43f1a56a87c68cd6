#!/usr/bin/env bash
# Builds the bridge suite's real API server (k8s.io/apiextensions-apiserver) and etcd from the Go
# module proxy, pinned by this module's go.mod/go.sum, into $1 (default: the user cache). Binaries
# are never committed. etcd is built through this module because its own go.mod has replace
# directives that make `go install go.etcd.io/etcd/server/v3@...` fail.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VERSION=v0.34.10
OUT="${1:-${CLOUDORCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cloudorch}/k8s-testenv-$VERSION/bin}"
mkdir -p "$OUT"
cd "$HERE"
# Built to a temporary name and renamed, so an interrupted build never leaves a half binary.
if [ ! -x "$OUT/etcd" ]; then
  CGO_ENABLED=0 go build -o "$OUT/etcd.partial" go.etcd.io/etcd/server/v3
  mv "$OUT/etcd.partial" "$OUT/etcd"
fi
if [ ! -x "$OUT/apiextensions-apiserver" ]; then
  CGO_ENABLED=0 go build -o "$OUT/apiextensions-apiserver.partial" k8s.io/apiextensions-apiserver
  mv "$OUT/apiextensions-apiserver.partial" "$OUT/apiextensions-apiserver"
fi
echo "$OUT"
