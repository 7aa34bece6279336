"""Asking the user through the official MCP Python SDK's elicitation callback, in one
lifecycle: accept once, accept always (the rule is written and the next start does not ask),
decline, cancel, a denied task is never asked about, and the runners' own confirmations
(just `[confirm]`, go-task `prompt`, mise `confirm`) are asked with the runner's words.

Usage: python py_elicit.py MODE AGG_BIN ROOT ALLOWLIST
"""

import asyncio
import os
import sys

import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

sys.dont_write_bytecode = True  # importing tally leaves no __pycache__ in the tests
from tally import check, run, summary  # noqa: E402

asked = []  # (message, schema property names) of every question
answers = []  # what the callback answers next, in order


async def on_elicit(context, params):
    props = list((params.requested_schema or {}).get("properties", {}).keys())
    asked.append((params.message, props))
    await asyncio.sleep(0.3)  # long enough for a concurrent call to arrive meanwhile
    if not answers:
        return types.ElicitResult(action="cancel")
    action, content = answers.pop(0)
    return types.ElicitResult(action=action, content=content)


def code(result):
    return ((result.meta or {}).get("agg/error") or {}).get("code")


async def main():
    mode, agg, root, allowlist = sys.argv[1:]
    server = StdioServerParameters(command=agg, args=["mcp", "--root", root], env=dict(os.environ))
    async with Client(server, mode=mode, elicitation_callback=on_elicit) as client:
        # Run once: runs, nothing written.
        before = open(allowlist).read()
        answers.append(("accept", {"decision": "once"}))
        r = await client.call_tool("task_start", {"unique_name": "hello"})
        check(not r.is_error and r.structured_content["exit_code"] == 0, f"once runs: {r}")
        check(len(asked) == 1 and "hello" in asked[0][0] and "make hello" in asked[0][0], f"the form names the task and command: {asked}")
        check("Makefile:" in asked[0][0], f"the form has file:line: {asked[0][0]}")
        check(open(allowlist).read() == before, "once writes nothing")
        # Always this task: written; the next start does not ask.
        answers.append(("accept", {"decision": "always-task"}))
        r = await client.call_tool("task_start", {"unique_name": "again"})
        check(not r.is_error, f"always-task runs: {r}")
        check("again" in open(allowlist).read(), "always-task writes the rule")
        n = len(asked)
        r = await client.call_tool("task_start", {"unique_name": "again"})
        check(not r.is_error and len(asked) == n, "an allowed task is not asked again")
        # "Run once" covers one start: two concurrent starts of the same task are asked
        # one after the other (classic sessions, where the question is asked while the
        # calls wait), never both served by one answer.
        if mode == "legacy":
            n = len(asked)
            answers.append(("accept", {"decision": "once"}))
            answers.append(("accept", {"decision": "once"}))
            both = await asyncio.gather(
                client.call_tool("task_start", {"unique_name": "hello", "allow_parallel": True}),
                client.call_tool("task_start", {"unique_name": "hello", "allow_parallel": True}),
            )
            check(len(asked) == n + 2, f"two concurrent starts asked {len(asked) - n} times")
            check(all(not r.is_error for r in both), f"both ran: {both}")
        # Decline and cancel: -32010, declined by the user.
        answers.append(("decline", None))
        r = await client.call_tool("task_start", {"unique_name": "hello"})
        check(r.is_error and code(r) == -32010 and "declined by the user" in r.content[0].text, f"decline: {r}")
        answers.append(("cancel", None))
        r = await client.call_tool("task_start", {"unique_name": "hello"})
        check(r.is_error and code(r) == -32010, f"cancel: {r}")
        # Deny: written, refused, and never asked again.
        answers.append(("accept", {"decision": "deny"}))
        r = await client.call_tool("task_start", {"unique_name": "other"})
        check(r.is_error and code(r) == -32010, f"deny refuses: {r}")
        n = len(asked)
        r = await client.call_tool("task_start", {"unique_name": "other"})
        check(r.is_error and code(r) == -32010 and len(asked) == n, "a denied task is never asked about")
        r = await client.call_tool("task_start", {"unique_name": "deploy"})
        check(r.is_error and code(r) == -32010 and len(asked) == n, "a deny rule from the file is never asked about")
        # The runners' own confirmations, in their words.
        for name, words in (
            ("publish", "Run recipe `publish`?"),
            ("ship", "Ship it to production?"),
            ("release", "Cut a release?"),
        ):
            n = len(asked)
            answers.append(("accept", {"confirm": True}))
            r = await client.call_tool("task_start", {"unique_name": name})
            check(not r.is_error and r.structured_content.get("exit_code") == 0, f"{name} confirmed runs: {r}")
            check(len(asked) == n + 1 and words in asked[n][0] and asked[n][1] == ["confirm"], f"{name} asked with the runner's words: {asked[n:]}")
            answers.append(("accept", {"confirm": False}))
            r = await client.call_tool("task_start", {"unique_name": name})
            check(r.is_error and code(r) == -32014, f"{name} not confirmed: {r}")
    return summary(f"python-sdk elicitation ({mode})")


if __name__ == "__main__":
    run(main)
