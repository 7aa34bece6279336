#!/usr/bin/env bash
# Watcher cost: `agg mcp` on the large generated monorepo, idle, while other programs read
# the tree (what a search, a `git status` or an editor does), under unrelated edits, then
# after one task-file edit. Prints the CPU time agg used in each phase (from /proc/PID/stat),
# which should be ~0 while nothing changes.
#
#   scripts/bench/watch.sh [IDLE_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
idle=${1:-20}
repo=target/bench-monorepo
[ -d "$repo" ] || python3 scripts/gen-monorepo.py "$repo" --quiet
cargo build --release --quiet --bin agg
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
fifo=$(mktemp -u); mkfifo "$fifo"
target/release/agg mcp --root "$repo" < "$fifo" > /dev/null 2>&1 &
pid=$!
exec 3> "$fifo"   # keep the server's stdin open
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}' >&3
sleep 5   # startup: scan + watch setup
t0=$(ticks $pid); sleep "$idle"; t1=$(ticks $pid)
echo "idle ${idle}s:                      agg CPU $(( (t1 - t0) * 1000 / hz )) ms"
# Reads change nothing: every directory listed and every task file read, five times over.
reads_from=$(ticks $pid)
for _ in 1 2 3 4 5; do
  find "$repo" -not -path '*/node_modules/*' \( -name Makefile -o -name package.json -o -name 'Taskfile*' \) -exec cat {} + > /dev/null
done
sleep 1; t1=$(ticks $pid)
echo "the tree read 5 times:         agg CPU $(( (t1 - reads_from) * 1000 / hz )) ms (no wake-up)"
for i in $(seq 1 200); do echo "$i" > "$repo/unrelated-$((i % 20)).txt"; done
sleep 2; t2=$(ticks $pid)
echo "200 unrelated file writes:     agg CPU $(( (t2 - t1) * 1000 / hz )) ms (no rescan)"
mk=$(find "$repo" -name Makefile -not -path '*/node_modules/*' -print -quit)
# Put back afterwards (in place: the large trees share the file through hard links).
saved=$(mktemp); cp "$mk" "$saved"
printf '\nbench-added: ## added by the watch benchmark\n\t@true\n' >> "$mk"
sleep 2; t3=$(ticks $pid)
echo "one Makefile edit (re-parse):  agg CPU $(( (t3 - t2) * 1000 / hz )) ms"
cat "$saved" > "$mk"; rm -f "$saved"
rm -f "$repo"/unrelated-*.txt
exec 3>&-
wait $pid 2>/dev/null || true
rm -f "$fifo"
