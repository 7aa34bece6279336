#!/usr/bin/env bash
# Installs the test runners, compilers and linters whose output agg reads into `tests` and
# `problems` (src/results/), for the tests that run them and compare agg's reading with each
# tool's own machine report. Source it: `. scripts/checkers.sh`.
#   - PyPI, into .tools/venv-checkers: pytest, ruff, mypy, pyright (its wheel carries
#     pyright itself; it runs on the machine's Node.js);
#   - npm, into .tools/npm-checkers: jest, jest-junit, vitest (4, which runs on Node.js 20),
#     mocha, typescript (5), eslint with eslint-formatter-unix (ESLint 9 moved the unix format out);
#   - Debian, with apt-get when running as root: golang-go (go test, go vet, go build) and
#     junit4 (the JUnit jar a Gradle project of the tests compiles against, offline; Gradle
#     itself comes from scripts/runners.sh).
# gcc, javac and cargo (with cargo-nextest) come from the machine. Tools already installed
# are left alone.

agg_checkers="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools"
mkdir -p "$agg_checkers"

if [ ! -x "$agg_checkers/venv-checkers/bin/pyright" ] || [ ! -x "$agg_checkers/venv-checkers/bin/mypy" ]; then
  echo "installing pytest, ruff, mypy and pyright into .tools/venv-checkers (PyPI)" >&2
  { [ -x "$agg_checkers/venv-checkers/bin/pip" ] || python3 -m venv "$agg_checkers/venv-checkers" >&2; } &&
    "$agg_checkers/venv-checkers/bin/pip" install --quiet --disable-pip-version-check \
      pytest ruff mypy pyright >&2
fi
if [ -x "$agg_checkers/venv-checkers/bin/pytest" ]; then
  PATH="$PATH:$agg_checkers/venv-checkers/bin"
fi

if [ ! -x "$agg_checkers/npm-checkers/node_modules/.bin/eslint" ] ||
  [ ! -x "$agg_checkers/npm-checkers/node_modules/.bin/vitest" ] ||
  [ ! -d "$agg_checkers/npm-checkers/node_modules/eslint-formatter-unix" ]; then
  echo "installing jest, jest-junit, vitest, mocha, typescript and eslint into .tools/npm-checkers (npm registry)" >&2
  mkdir -p "$agg_checkers/npm-checkers" &&
    npm install --prefix "$agg_checkers/npm-checkers" --no-audit --no-fund --silent \
      jest@30 jest-junit@17 vite@8.3.8 vitest@4.1.12 mocha@12 typescript@5 eslint@10 @eslint/js@10 eslint-formatter-unix >&2
fi
if [ -d "$agg_checkers/npm-checkers/node_modules/.bin" ]; then
  PATH="$PATH:$agg_checkers/npm-checkers/node_modules/.bin"
  export AGG_NODE_CHECKERS="$agg_checkers/npm-checkers/node_modules"
fi

if { ! command -v go >/dev/null 2>&1 || [ ! -f /usr/share/java/junit4.jar ]; } &&
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing golang-go and junit4 (apt-get)" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends golang-go junit4; } >&2
fi
export PATH
unset agg_checkers
