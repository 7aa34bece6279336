#!/usr/bin/env bash
# Runs the Neovim plugin's tests in `nvim --headless` against the real agg on a fresh copy of
# editors/fixture. Usage: AGG_BIN=/path/to/agg editors/nvim/test/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
: "${AGG_BIN:?set AGG_BIN to the agg binary}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -R "$plugin/../fixture" "$work/repo"
"$AGG_BIN" list --json "$work/repo" >"$work/expected.json"
cd "$work/repo"
# timeout: a test that waits for input it never gets fails instead of hanging.
AGG_FIXTURE="$work/repo" AGG_EXPECTED="$work/expected.json" \
  timeout 300 nvim --headless -u NONE -i NONE -n \
  --cmd "set runtimepath^=$plugin" --cmd 'runtime plugin/agg.lua' \
  -c "luafile $here/agg_spec.lua" </dev/null
