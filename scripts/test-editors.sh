#!/usr/bin/env bash
# The editor integrations' tests, against the real agg:
#   - editors/vscode: npm ci (pinned by package-lock.json), `npm test` (tsc --strict, then node's
#     test runner with only the `vscode` module faked), then `vsce package` for the .vsix;
#   - editors/nvim: the plugin in `nvim --headless` (Debian's `neovim`, installed with apt-get
#     when missing, as root or in CI with password-less sudo).
# agg is $AGG_BIN, else `cargo build --bin agg` (in $CARGO_TARGET_DIR, else target/).
# A missing node or nvim skips that suite with a warning; with AGG_REQUIRE_RUNNERS=1 it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

required() { [ "${AGG_REQUIRE_RUNNERS:-}" = 1 ]; }
missing() {
  if required; then
    echo "error: $1 (AGG_REQUIRE_RUNNERS=1)" >&2
    exit 1
  fi
  echo "warning: SKIPPED: $1" >&2
}

if [ -z "${AGG_BIN:-}" ]; then
  cargo build --quiet --bin agg
  AGG_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/agg"
fi
AGG_BIN="$(cd "$(dirname "$AGG_BIN")" && pwd)/$(basename "$AGG_BIN")"
export AGG_BIN
echo "editors: testing against $AGG_BIN ($("$AGG_BIN" --version))"

status=0
summary=()

# --- VS Code extension ---
# Every step is checked by hand: errexit does not apply inside a function called in a condition.
vscode_suite() {
  cd editors/vscode || return 1
  # npm ci only when the lockfile changed since the last install.
  if ! cmp -s package-lock.json node_modules/.agg-installed-lock 2>/dev/null; then
    npm ci --no-audit --no-fund || return 1
    cp package-lock.json node_modules/.agg-installed-lock || return 1
  fi
  npm test || return 1
  npx --no-install vsce package --out agg-tasks.vsix || return 1
}

node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if ! command -v npm >/dev/null 2>&1 || [ "$node_major" -lt 20 ]; then
  missing "the VS Code extension's tests need node 20 or newer and npm"
  summary+=("vscode: skipped")
else
  if (vscode_suite); then
    summary+=("vscode: passed, agg-tasks.vsix packaged")
  else
    status=1
    summary+=("vscode: FAILED")
  fi
fi

# --- Neovim plugin ---
# As root, or in CI with password-less sudo: Debian's neovim (0.7.2 on bookworm).
as_root=() can_install=
if [ "$(id -u)" = 0 ]; then
  can_install=1
elif [ -n "${CI:-}" ] && sudo -n true 2>/dev/null; then
  as_root=(sudo -n) can_install=1
fi
if ! command -v nvim >/dev/null 2>&1 && [ -n "$can_install" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing neovim (apt-get)" >&2
  { "${as_root[@]}" apt-get update -qq &&
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim; } >&2 ||
    echo "warning: apt-get install neovim failed" >&2
fi
if ! command -v nvim >/dev/null 2>&1; then
  missing "nvim is not installed; the Neovim plugin's tests need it (apt-get install neovim)"
  summary+=("neovim: skipped")
else
  echo "editors: $(nvim --version | head -n 1)"
  if editors/nvim/test/run.sh; then
    summary+=("neovim: passed")
  else
    status=1
    summary+=("neovim: FAILED")
  fi
fi

echo "editors: $(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g')"
exit "$status"
