# Shared by the project's scripts (sourced, not run): whether a missing tool fails the run
# (AGG_REQUIRE_RUNNERS=1, as in CI) or skips its part, this machine's platform as npm and
# VS Code name it, and what the screenshot scripts draw with.

required() { [ "${AGG_REQUIRE_RUNNERS:-}" = 1 ]; }

# missing WHAT: fails under AGG_REQUIRE_RUNNERS, else says the part is skipped.
missing() {
  if required; then
    echo "error: $1 (AGG_REQUIRE_RUNNERS=1)" >&2
    exit 1
  fi
  echo "warning: SKIPPED: $1" >&2
}

# platform: linux-x64, linux-arm64, darwin-x64 or darwin-arm64; fails elsewhere.
platform() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo linux-x64 ;;
    Linux-aarch64) echo linux-arm64 ;;
    Darwin-x86_64) echo darwin-x64 ;;
    Darwin-arm64) echo darwin-arm64 ;;
    *) echo "error: no package for $(uname -s)-$(uname -m)" >&2; return 1 ;;
  esac
}

# screenshot_tools ROOT: what scripts/screenshot.py needs, installed when missing: tmux and the
# DejaVu fonts (Debian: apt-get, when running as root) and Pillow (PyPI, into
# ROOT/.tools/venv-shots).
screenshot_tools() {
  if { ! command -v tmux >/dev/null 2>&1 || [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ]; } &&
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing tmux and fonts-dejavu-core (apt-get)" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends tmux fonts-dejavu-core; } >&2
  fi
  if [ ! -x "$1/.tools/venv-shots/bin/python" ] || ! "$1/.tools/venv-shots/bin/python" -c 'import PIL' 2>/dev/null; then
    echo "installing Pillow into .tools/venv-shots (PyPI)" >&2
    python3 -m venv "$1/.tools/venv-shots" >&2
    "$1/.tools/venv-shots/bin/pip" install --quiet --disable-pip-version-check pillow >&2
  fi
}
