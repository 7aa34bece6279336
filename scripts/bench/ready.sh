#!/usr/bin/env bash
# Readiness cost: `agg mcp` starts a service (a python http.server named `serve`), waits
# until it listens, then both idle. Prints the CPU time agg and the service used over the
# idle window (from /proc/PID/stat): readiness checks stop once the call returns, so agg's
# figure should be ~0, like the service's own.
#
#   scripts/bench/ready.sh [IDLE_SECONDS]      (AGG=path/to/agg to use another build)
set -euo pipefail
cd "$(dirname "$0")/../.."
idle=${1:-20}
if [ -z "${AGG:-}" ]; then
  cargo build --release --quiet --bin agg
  AGG=target/release/agg
fi
repo=$(mktemp -d)
config=$(mktemp -d)
trap 'rm -rf "$repo" "$config"' EXIT
printf 'serve:\n\tpython3 -m http.server 0 --bind 127.0.0.1\n' > "$repo/Makefile"
AGG_ALLOWLIST="$config/allowlist.toml" "$AGG" allow --dir "$repo" > /dev/null
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
fifo="$config/in"; out="$config/out"; mkfifo "$fifo"
AGG_ALLOWLIST="$config/allowlist.toml" XDG_RUNTIME_DIR="$config" \
  "$AGG" mcp --root "$repo" < "$fifo" > "$out" 2>/dev/null &
pid=$!
exec 3> "$fifo"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}' >&3
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task_start","arguments":{"unique_name":"serve"}}}' >&3
for _ in $(seq 1 100); do grep -q '"id":2' "$out" && break; sleep 0.1; done
grep -o '"ready":true' "$out" | head -1 > /dev/null || { echo "the service did not become ready"; exit 1; }
url=$(grep -o '"urls":\["[^"]*' "$out" | head -1 | sed 's/.*\["//')
svc=$(grep -o '"pid":[0-9]*' "$out" | head -1 | cut -d: -f2)
sleep 1
a0=$(ticks $pid); s0=$(ticks $svc)
sleep "$idle"
a1=$(ticks $pid); s1=$(ticks $svc)
echo "service ready at $url (pid $svc)"
echo "idle ${idle}s with a ready service:  agg CPU $(( (a1 - a0) * 1000 / hz )) ms   service CPU $(( (s1 - s0) * 1000 / hz )) ms"
exec 3>&-
wait $pid 2>/dev/null || true
