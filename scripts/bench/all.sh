#!/usr/bin/env bash
# Every agg benchmark in one go; the README cites this output.
#
#   scripts/bench/all.sh [--check] [--regen]
#
# Runs, in order:
#   scripts/bench/list.sh            agg list --json, cold and warm, vs fd --type f and rg --files
#                                     (builds agg in release,
#                                     generates target/bench-monorepo when missing)
#   cargo bench --bench engine       output flood and start overhead of the job engine
#   cargo bench --bench mcp          MCP cold start and task_start round trip
#   cargo bench --bench memory       resident memory after 3,000 runs; a client that never reads
# and repeats every PASS/FAIL summary at the end.
#
# Timing targets are reported, not enforced: the exit status is 0 even when one is missed,
# unless --check is given (then any miss fails). --regen regenerates the monorepo.
# Figures are only comparable on an otherwise idle machine: the load average is printed.
set -uo pipefail
cd "$(dirname "$0")/../.."

CHECK=() REGEN=()
for a in "$@"; do
  case "$a" in
    --check) CHECK=(--check) ;;
    --regen) REGEN=(--regen) ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "all.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done

for d in /tmp/tools/venv/bin /tmp/tools/npm/node_modules/.bin "$PWD/.tools/venv/bin" "$PWD/.tools/npm/node_modules/.bin"; do
  [ -d "$d" ] && PATH="$d:$PATH"
done
export PATH
. scripts/bench/tools.sh

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "# agg benchmarks"
echo "date:      $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "commit:    $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo ' (+ uncommitted changes)')"
echo "machine:   $(uname -srm), $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
echo "load avg:  $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min)"
echo "toolchain: $(rustc --version), $(hyperfine --version), $(rg --version | head -n 1), $($FD --version)"
echo

status=0
run() { # name command...
  local name=$1; shift
  echo "################ $name: $*"
  "$@" 2>&1 | tee "$OUT/$name.log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || { echo "($name exited with $rc)"; status=1; }
  echo
}

run list scripts/bench/list.sh "${REGEN[@]}" "${CHECK[@]}"
run engine cargo bench --quiet --bench engine -- "${CHECK[@]}"
run mcp cargo bench --quiet --bench mcp -- "${CHECK[@]}"
run memory cargo bench --quiet --bench memory -- "${CHECK[@]}"

echo "################ summary (load avg now: $(cut -d' ' -f1-3 /proc/loadavg))"
grep -h -E 'target .*(PASS|FAIL|\(info\))$|^SUMMARY|^BROKEN|^ASSERT' "$OUT"/list.log "$OUT"/engine.log "$OUT"/mcp.log "$OUT"/memory.log | sed 's/^ *//'
exit $status
