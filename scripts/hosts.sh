#!/usr/bin/env bash
# Installs the MCP hosts the host tests drive into .tools/hosts/ (source it after
# scripts/clients.sh: `. scripts/hosts.sh`): Claude Code, Gemini CLI, Codex, Qwen Code and
# opencode, pinned, from the npm registry. Claude Code and Qwen Code need Node.js 22, which
# scripts/clients.sh provides when the machine's node is older. Exports AGG_HOSTS=.tools/hosts
# for the tests (tests/hosts.rs).

agg_hosts="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools/hosts"
agg_host_pkgs="@anthropic-ai/claude-code@2.1.332 @google/gemini-cli@0.61.0 @openai/codex@0.169.0 @qwen-code/qwen-code@0.24.4 opencode-ai@1.18.33"
mkdir -p "$agg_hosts"

agg_hosts_ok() {
  local pkg name version
  for pkg in $agg_host_pkgs; do
    name="${pkg%@*}"
    version="${pkg##*@}"
    [ -f "$agg_hosts/node_modules/$name/package.json" ] &&
      grep -q "\"version\": \"$version\"" "$agg_hosts/node_modules/$name/package.json" || return 1
  done
}

if ! agg_hosts_ok; then
  echo "installing the MCP hosts into .tools/hosts (npm registry: $agg_host_pkgs)" >&2
  if [ -n "${AGG_CLIENTS:-}" ] && [ -x "$AGG_CLIENTS/npm/node_modules/.bin/node" ]; then
    # shellcheck disable=SC2086
    PATH="$AGG_CLIENTS/npm/node_modules/.bin:$PATH" npm install --prefix "$agg_hosts" \
      --no-audit --no-fund --silent $agg_host_pkgs >&2
  else
    # shellcheck disable=SC2086
    npm install --prefix "$agg_hosts" --no-audit --no-fund --silent $agg_host_pkgs >&2
  fi
fi
export AGG_HOSTS="$agg_hosts"
unset agg_hosts agg_host_pkgs
unset -f agg_hosts_ok
