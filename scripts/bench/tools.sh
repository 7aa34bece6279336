#!/usr/bin/env bash
# The benchmarks' reference tools, hyperfine and ripgrep (Debian: hyperfine, ripgrep): installed
# with apt-get when missing and running as root, otherwise named with the command that installs
# them. Source it: `. scripts/bench/tools.sh`.
agg_bench_missing=()
for tool in hyperfine rg; do
  command -v "$tool" >/dev/null 2>&1 || agg_bench_missing+=("$tool")
done
if [ ${#agg_bench_missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing hyperfine and ripgrep (apt-get)" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends hyperfine ripgrep; } >&2
  else
    echo "the benchmarks need ${agg_bench_missing[*]}: \`apt install hyperfine ripgrep\`, \`brew install hyperfine ripgrep\` or \`cargo install hyperfine ripgrep\`" >&2
    exit 2
  fi
fi
unset agg_bench_missing
