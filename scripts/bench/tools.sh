#!/usr/bin/env bash
# The benchmarks' reference tools, hyperfine, ripgrep and fd (Debian: hyperfine, ripgrep,
# fd-find): installed with apt-get when missing and running as root, otherwise named with the
# command that installs them. Source it: `. scripts/bench/tools.sh`; it sets FD to fd's name
# (Debian installs it as `fdfind`).
agg_bench_fd() { command -v fd 2>/dev/null || command -v fdfind 2>/dev/null; }
agg_bench_missing=()
for tool in hyperfine rg; do
  command -v "$tool" >/dev/null 2>&1 || agg_bench_missing+=("$tool")
done
agg_bench_fd >/dev/null || agg_bench_missing+=(fd)
if [ ${#agg_bench_missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing hyperfine, ripgrep and fd-find (apt-get)" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends hyperfine ripgrep fd-find; } >&2
  else
    echo "the benchmarks need ${agg_bench_missing[*]}: \`apt install hyperfine ripgrep fd-find\`, \`brew install hyperfine ripgrep fd\` or \`cargo install hyperfine ripgrep fd-find\`" >&2
    exit 2
  fi
fi
FD=$(agg_bench_fd)
export FD
unset agg_bench_missing
