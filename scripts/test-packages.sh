#!/usr/bin/env bash
# The packages, installed the way users install them. scripts/package.sh builds the release
# binary once and makes this platform's packages into target/dist/; each is installed into a fresh
# prefix, with nothing of the build tree on PATH, and the installed agg must print its version and
# serve MCP (scripts/packages/mcp-check.py: initialize, list_tasks on a small repository, exit):
#   - PyPI: the wheel with pip into a fresh venv (`pipx install task-agg` does the same), and with
#     `uvx --from WHEEL agg` (uv from .tools/venv, installed by scripts/runners.sh);
#   - npm: the task-agg and task-agg-<os>-<cpu> tarballs into a fresh prefix, offline, run through
#     `npx task-agg` and node_modules/.bin; the launcher forwards SIGTERM to agg; without the
#     platform package it says so, naming the platform and the other installs;
#   - crates.io: `cargo publish --workspace --dry-run` packages both crates and builds them as
#     crates.io would (agg-runners first, through cargo's local overlay of the registry).
# A missing python3, node/npm or uv skips its part with a warning; with AGG_REQUIRE_RUNNERS=1 it
# fails. The packages carry the debug build unless AGG_PACKAGE_PROFILE=release. Set AGG_SKIP_PACKAGE=1 to reuse target/dist/ from an earlier scripts/package.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
dist="$target_dir/dist"
check="$repo/scripts/packages/mcp-check.py"
started=$SECONDS

. scripts/lib.sh
for tool in python3 node npm; do
  command -v "$tool" >/dev/null 2>&1 || missing "$tool is not installed; the package tests need it"
done
command -v python3 >/dev/null 2>&1 && command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
  exit 0

if [ "${AGG_SKIP_PACKAGE:-}" != 1 ]; then
  # The debug build the tests already made (AGG_PACKAGE_PROFILE=release packages as a release does).
  AGG_PACKAGE_PROFILE="${AGG_PACKAGE_PROFILE:-dev}" scripts/package.sh >/dev/null
fi
version="$(cargo pkgid -p task-agg | sed 's/.*[#@]//')"
expected="agg $version"
wheel="$(ls "$dist"/task_agg-"$version"-*.whl)"
npm_platform="$(platform)" || exit 1
launcher_tgz="$dist/task-agg-$version.tgz"
platform_tgz="$dist/task-agg-$npm_platform-$version.tgz"

work="$(mktemp -d "${TMPDIR:-/tmp}/agg-packages.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# A small repository for the servers to serve, and a PATH with the system's tools only: python3
# and node where the system has them, nothing from the repository, target/ or .tools/.
mkdir "$work/repo"
printf 'hello: ## Say hello\n\t@echo hello\n' >"$work/repo/Makefile"
python="$(python3 -c 'import sys; print(sys.executable)')"
clean_path="$(dirname "$(command -v node)"):/usr/local/bin:/usr/bin:/bin"
fresh() { env -i HOME="$work/home" PATH="$clean_path" TMPDIR="$work" LANG=C.UTF-8 "$@"; }
mkdir "$work/home"

failures=0
pass() { echo "packages: ok: $*"; }
failed() { echo "packages: FAILED: $*" >&2; failures=$((failures + 1)); }
same_version() { # what, output
  if [ "$2" = "$expected" ]; then pass "$1 --version: $2"; else failed "$1 --version printed '$2', expected '$expected'"; fi
}
mcp() { # what, command...
  local what="$1" out
  shift
  if out="$(fresh "$python" "$check" "$work/repo" "$@" 2>&1)"; then pass "$what: $out"; else failed "$what: $out"; fi
}

# --- PyPI: the wheel ---
echo "packages: $(basename "$wheel") ($(wc -c <"$wheel") bytes)"
if fresh "$python" -m venv "$work/venv" && fresh "$work/venv/bin/pip" install --quiet --no-index \
  --disable-pip-version-check "$wheel"; then
  same_version "pip: agg" "$(fresh "$work/venv/bin/agg" --version)"
  mcp "pip: agg mcp" "$work/venv/bin/agg" mcp
else
  failed "pip install $(basename "$wheel") into a fresh venv"
fi

uv="$(command -v uv || true)"
[ -n "$uv" ] || [ ! -x "$repo/.tools/venv/bin/uv" ] || uv="$repo/.tools/venv/bin/uv"
if [ -z "$uv" ]; then
  missing "uv is not installed (scripts/runners.sh installs it); uvx --from the wheel is not tested"
else
  # uvx, offline from the wheel, with its own empty cache and tool folders.
  uvx=(env UV_CACHE_DIR="$work/uv-cache" UV_TOOL_DIR="$work/uv-tools" UV_PYTHON="$python"
    UV_PYTHON_DOWNLOADS=never "$uv" tool run --offline --from "$wheel")
  same_version "uvx --from the wheel: agg" "$(fresh "${uvx[@]}" agg --version)"
  mcp "uvx --from the wheel: agg mcp" "${uvx[@]}" agg mcp
fi

# --- npm: the launcher and this platform's binary ---
echo "packages: $(basename "$launcher_tgz") ($(wc -c <"$launcher_tgz") bytes), $(basename "$platform_tgz") ($(wc -c <"$platform_tgz") bytes)"
npm_fresh=(fresh npm --cache "$work/npm-cache" --offline --no-audit --no-fund --loglevel=error)
if "${npm_fresh[@]}" install --prefix "$work/npm" "$platform_tgz" "$launcher_tgz" >/dev/null; then
  same_version "npx task-agg" "$(cd "$work/repo" && fresh npx --prefix "$work/npm" --offline --no-install task-agg --version)"
  same_version "node_modules/.bin/agg" "$(fresh "$work/npm/node_modules/.bin/agg" --version)"
  mcp "npm: task-agg mcp" "$work/npm/node_modules/.bin/task-agg" mcp
  if out="$(fresh "$python" "$check" --stop-with-signal "$work/repo" "$work/npm/node_modules/.bin/task-agg" mcp 2>&1)"; then
    pass "npm: SIGTERM to the launcher stops agg: $out"
  else
    failed "npm: SIGTERM to the launcher: $out"
  fi
  # On a platform without a prebuilt agg, the launcher names it and the other installs.
  launcher_js="$work/npm/node_modules/task-agg/task-agg.js"
  if out="$(fresh node -e "Object.defineProperty(process, 'arch', { value: 'riscv64' }); require(process.argv[1]);" \
    "$launcher_js" 2>&1)"; then
    failed "the launcher on linux-riscv64 succeeded: $out"
  elif grep -q "no prebuilt agg for linux-riscv64 (prebuilt: darwin-arm64, darwin-x64, linux-arm64, linux-x64)" <<<"$out" &&
    grep -q 'cargo install task-agg' <<<"$out"; then
    pass "the launcher on a platform without a prebuilt agg: $out"
  else
    failed "the launcher on linux-riscv64 said: $out"
  fi
else
  failed "npm install of $(basename "$platform_tgz") and $(basename "$launcher_tgz") into a fresh prefix"
fi
# Without its platform package (optional dependencies left out), the launcher says what is wrong.
if "${npm_fresh[@]}" install --prefix "$work/npm-bare" --omit=optional "$launcher_tgz" >/dev/null; then
  if out="$(fresh "$work/npm-bare/node_modules/.bin/task-agg" --version 2>&1)"; then
    failed "the launcher without task-agg-$npm_platform succeeded: $out"
  elif grep -q "task-agg-$npm_platform, which holds agg for $npm_platform, is not installed" <<<"$out" &&
    grep -q 'cargo install task-agg' <<<"$out" && grep -q 'pipx install task-agg' <<<"$out"; then
    pass "the launcher without its platform package: $out"
  else
    failed "the launcher without its platform package said: $out"
  fi
else
  failed "npm install --omit=optional of $(basename "$launcher_tgz")"
fi

# --- crates.io: both crates packaged and built as crates.io would build them ---
# The target directory named explicitly: the build of the packaged crates then reuses the
# dependencies already built there instead of building them all again.
# cargo takes a registry crate of one version for immutable: it unpacks the dry run's agg-runners
# once and reuses that copy, and its build, ever after. Both go, so that this tree's is built.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/agg-runners-[0-9]* \
  "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/task-agg-[0-9]*
for depinfo in "$target_dir"/debug/deps/agg_runners-*.d; do
  [ -f "$depinfo" ] && grep -q '/registry/src/' "$depinfo" || continue
  hash=${depinfo##*/agg_runners-}
  hash=${hash%.d}
  rm -rf "$target_dir"/debug/deps/*agg_runners-"$hash"* "$target_dir"/debug/.fingerprint/agg-runners-"$hash"
done
if CARGO_TARGET_DIR="$target_dir" cargo publish --workspace --dry-run --locked --allow-dirty >"$work/publish.log" 2>&1; then
  pass "cargo publish --workspace --dry-run: $(grep -c '^ *Packaged' "$work/publish.log") crates packaged and built"
else
  failed "cargo publish --workspace --dry-run: $(grep -v 'File system loop' "$work/publish.log" | tail -20)"
fi

echo "packages: $((SECONDS - started)) s"
[ "$failures" = 0 ] || { echo "packages: $failures FAILED" >&2; exit 1; }
