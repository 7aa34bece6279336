"""The client-matrix scenario through the official MCP Python SDK, in one lifecycle: every
tool on success and on each error, every resource. The SDK validates structuredContent
against each tool's outputSchema.

Usage: python py_client.py MODE SCENARIO_JSON AGG_BIN ROOT [AGG_ARGS...]
MODE is `legacy` (the initialize handshake) or a protocol version such as `2026-07-28`.
"""

import json
import os
import sys

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

sys.dont_write_bytecode = True  # importing tally leaves no __pycache__ in the tests
from tally import check, run, summary  # noqa: E402


def fill(value, captured):
    if isinstance(value, str) and value.startswith("$"):
        return captured.get(value[1:])
    if isinstance(value, list):
        return [fill(v, captured) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, captured) for k, v in value.items()}
    return value


async def main():
    mode, scenario_path, agg, root, *extra = sys.argv[1:]
    with open(scenario_path) as f:
        scenario = json.load(f)
    server = StdioServerParameters(command=agg, args=["mcp", "--root", root, *extra], env=dict(os.environ))
    async with Client(server, mode=mode) as client:
        tools = (await client.list_tools()).tools
        check(len(tools) >= 7, f"tools/list has the seven tools ({len(tools)})")
        captured = {}
        for step in scenario["steps"]:
            what = f"{step['tool']} {json.dumps(step['args'])}"
            try:
                result = await client.call_tool(step["tool"], fill(step["args"], captured))
            except Exception as e:  # noqa: BLE001 - any SDK refusal is a failure to report
                check(False, f"{what}: the SDK raised {type(e).__name__}: {e}")
                continue
            expect = step["expect"]
            if "code" in expect:
                meta = (result.meta or {}).get("agg/error") or {}
                check(result.is_error is True, f"{what}: isError")
                check(result.structured_content is None, f"{what}: no structuredContent on an error")
                check(meta.get("code") == expect["code"], f"{what}: code {meta.get('code')}, want {expect['code']}")
                text = result.content[0].text if result.content else ""
                check(f"error {expect['code']}" in text, f"{what}: the text names the code: {text}")
            else:
                s = result.structured_content or {}
                check(not result.is_error, f"{what}: not an error: {str(result)[:300]}")
                for key in ("state", "exit_code", "passed"):
                    if key in expect:
                        check(s.get(key) == expect[key], f"{what}: {key} {s.get(key)}, want {expect[key]}")
                if "min_total" in expect:
                    check(s.get("total", 0) >= expect["min_total"], f"{what}: total {s.get('total')}")
                if step.get("capture"):
                    captured[step["capture"]] = s.get(step["capture"])
        run_log = f"agg://runs/{captured.get('run_id')}/log"
        resources = (await client.list_resources()).resources
        uris = [str(r.uri) for r in resources]
        check("agg://tasks" in uris, f"resources/list has agg://tasks: {uris}")
        check(run_log in uris, f"resources/list has the run's log: {uris}")
        templates = (await client.list_resource_templates()).resource_templates
        check(any(t.uri_template.startswith("agg://runs/{run_id}/log") for t in templates), "the run-log template")
        table = await client.read_resource("agg://tasks")
        check(len(json.loads(table.contents[0].text)["tasks"]) >= 4, "agg://tasks is the table")
        log = await client.read_resource(run_log)
        check("started" in log.contents[0].text, f"the run log has the output: {log.contents[0].text}")
    return summary(f"python-sdk ({mode})")


if __name__ == "__main__":
    run(main)
