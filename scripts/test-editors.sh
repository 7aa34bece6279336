#!/usr/bin/env bash
# The editor integrations' tests, against the real agg:
#   - editors/vscode: npm ci (pinned by package-lock.json), `npm test` (tsc --strict, then node's
#     test runner with only the `vscode` module faked), then `vsce package --target` for this
#     platform with agg bundled as bin/agg, checked by running the agg inside the .vsix;
#   - editors/nvim: the plugin in `nvim --headless` (Debian's `neovim`, installed with apt-get
#     when missing, as root or in CI with password-less sudo).
# agg is $AGG_BIN, else `cargo build --bin agg` (in $CARGO_TARGET_DIR, else target/).
# A missing node or nvim skips that suite with a warning; with AGG_REQUIRE_RUNNERS=1 it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

. scripts/lib.sh

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
  vscode_platform_package || return 1
}

# The platform-specific package, as the release builds one per platform: the extension with agg
# as bin/agg. The agg inside the .vsix must run, and be executable as VS Code unpacks it.
vscode_platform_package() {
  local target
  target="$(platform)" || return 1
  rm -rf bin && mkdir bin && cp "$AGG_BIN" bin/agg && chmod 755 bin/agg || return 1
  npx --no-install vsce package --target "$target" --out "agg-tasks-$target.vsix" || { rm -rf bin; return 1; }
  rm -rf bin
  python3 - "agg-tasks-$target.vsix" "$("$AGG_BIN" --version)" <<'PY' || return 1
import os, stat, subprocess, sys, tempfile, zipfile
vsix, version = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(vsix) as z:
    info = z.getinfo("extension/bin/agg")
    mode = info.external_attr >> 16
    if not mode & stat.S_IXUSR:
        sys.exit(f"{vsix}: extension/bin/agg is not executable (mode {oct(mode)})")
    manifest = z.read("extension.vsixmanifest").decode()
    with tempfile.TemporaryDirectory() as d:
        path = z.extract(info, d)
        os.chmod(path, mode & 0o777)
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
if out.stdout.strip() != version:
    sys.exit(f"{vsix}: bin/agg --version printed {out.stdout.strip()!r}, expected {version!r}")
if 'TargetPlatform="' not in manifest:
    sys.exit(f"{vsix}: the manifest names no target platform")
print(f"editors: {vsix} holds bin/agg ({version}, {info.file_size} bytes), {os.path.getsize(vsix)} bytes packed")
PY
}

node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if ! command -v npm >/dev/null 2>&1 || [ "$node_major" -lt 20 ]; then
  missing "the VS Code extension's tests need node 20 or newer and npm"
  summary+=("vscode: skipped")
else
  if (vscode_suite); then
    summary+=("vscode: passed, the platform .vsix packaged with agg inside")
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
