#!/usr/bin/env bash
# Builds agg's release binary once and makes every package of it for one platform into
# target/dist/ (or $CARGO_TARGET_DIR/dist/):
#   - the crates task-agg and agg-runners (cargo package; `cargo install task-agg` builds these),
#   - the PyPI wheel task-agg, which carries the binary (maturin, bindings = "bin"),
#   - the npm packages task-agg (the launcher) and task-agg-<os>-<cpu> (the binary) (npm pack).
# Usage: scripts/package.sh [RUST_TARGET]   (default: this machine's; the release workflow
# passes each of its targets). Prints the artefacts' paths.
# maturin comes from PyPI, pinned, into .tools/venv-maturin when missing.
# AGG_PACKAGE_PROFILE=dev packages the debug build instead of the release one: the install tests
# (scripts/test-packages.sh) check how the packages are made and installed, which does not depend
# on the optimisation level, and the test suite has built the debug binary already.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
maturin_version=1.16.0

host="$(rustc -vV | sed -n 's/^host: //p')"
target="${1:-$host}"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
dist="$target_dir/dist"

# One version for every package: the crate's. The npm manifests must say the same.
version="$(cargo pkgid -p task-agg | sed 's/.*[#@]//')"
npm_version="$(node -p 'require("./packaging/npm/task-agg/package.json").version')"
if [ "$npm_version" != "$version" ]; then
  echo "error: packaging/npm/task-agg/package.json has version $npm_version, the crate $version" >&2
  exit 1
fi

maturin="$repo/.tools/venv-maturin/bin/maturin"
if ! "$maturin" --version 2>/dev/null | grep -qx "maturin $maturin_version"; then
  echo "installing maturin $maturin_version into .tools/venv-maturin (PyPI)" >&2
  python3 -m venv "$repo/.tools/venv-maturin" >&2
  "$repo/.tools/venv-maturin/bin/pip" install --quiet --disable-pip-version-check "maturin==$maturin_version" >&2
fi

rm -rf "$dist" && mkdir -p "$dist"

# The binary, built once: maturin's build is this same cargo build, so it finds it up to date.
profile="${AGG_PACKAGE_PROFILE:-release}"
case "$profile" in
  release) out_dir=release ;;
  dev) out_dir=debug ;;
  *) echo "error: AGG_PACKAGE_PROFILE must be release or dev, not '$profile'" >&2; exit 2 ;;
esac
target_args=()
binary="$target_dir/$out_dir/agg"
if [ "$target" != "$host" ]; then
  target_args=(--target "$target")
  binary="$target_dir/$target/$out_dir/agg"
fi
cargo build --profile "$profile" --locked --bin agg "${target_args[@]}"
echo "agg $version for $target: $binary ($(wc -c <"$binary") bytes)" >&2

# The wheel. Run from packaging/pypi, whose pyproject.toml points maturin at the root crate.
(cd packaging/pypi && "$maturin" build --profile "$profile" --locked --out "$dist" "${target_args[@]}") >&2

# npm: the platform's package (the binary) and the launcher package.
platform_dir="$(node packaging/npm/platform-package.js "$target" "$binary" "$dist/npm")"
npm pack --silent --pack-destination "$dist" "$platform_dir" >/dev/null
npm pack --silent --pack-destination "$dist" "$repo/packaging/npm/task-agg" >/dev/null

# The crates, as `cargo publish` would upload them (agg-runners first: task-agg depends on it).
# Building them is `cargo publish --workspace --dry-run`, run by scripts/test-packages.sh.
cargo package --locked --no-verify --allow-dirty -p agg-runners -p task-agg >&2
cp "$target_dir/package/agg-runners-$version.crate" "$target_dir/package/task-agg-$version.crate" "$dist/"

ls -1 "$dist"/*.whl "$dist"/*.tgz "$dist"/*.crate
