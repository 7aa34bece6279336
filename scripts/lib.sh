# Shared by the test scripts (sourced, not run): whether a missing tool fails the run
# (AGG_REQUIRE_RUNNERS=1, as in CI) or skips its part, and this machine's platform as npm and
# VS Code name it.

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
