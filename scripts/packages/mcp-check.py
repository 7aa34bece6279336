#!/usr/bin/env python3
"""Starts an installed agg as an MCP client would and checks it answers.

    mcp-check.py [--stop-with-signal] DIR COMMAND [ARGS...]

runs COMMAND ARGS in DIR (a repository holding a Makefile with a `hello` target), sends
`initialize`, `notifications/initialized`, then `tools/call list_tasks`, and checks the server is
agg and that it lists `hello`. Then it closes stdin and the server must exit; with
--stop-with-signal it sends SIGTERM instead, and every process the command started (a launcher's
agg too) must be gone. Every wait has a deadline; exit status 1 with the reason on failure.
"""

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time

DEADLINE_S = 30


def fail(message):
    sys.stderr.write(f"mcp-check: {message}\n")
    sys.exit(1)


def descendants(pid):
    """The pids below `pid`, from /proc (Linux); empty where /proc has no children lists."""
    found, queue = [], [pid]
    while queue:
        parent = queue.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except OSError:
                continue
            found += children
            queue += children
    return found


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def main():
    args = sys.argv[1:]
    stop_with_signal = args[:1] == ["--stop-with-signal"]
    if stop_with_signal:
        args = args[1:]
    if len(args) < 2:
        fail("usage: mcp-check.py [--stop-with-signal] DIR COMMAND [ARGS...]")
    cwd, command = args[0], args[1:]
    # stderr goes to a file: a pipe nobody reads could fill and stall the server.
    errors = tempfile.TemporaryFile()
    child = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)

    def stderr_tail():
        errors.seek(0)
        return errors.read().decode(errors="replace")[-2000:]

    selector = selectors.DefaultSelector()
    selector.register(child.stdout, selectors.EVENT_READ)
    buffer = b""

    def send(message):
        child.stdin.write((json.dumps(message) + "\n").encode())
        child.stdin.flush()

    def receive(request_id):
        nonlocal buffer
        end = time.monotonic() + DEADLINE_S
        while True:
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    fail(f"a stdout line that is not JSON-RPC: {line[:200]!r}")
                if message.get("id") == request_id:
                    return message
            left = end - time.monotonic()
            if left <= 0 or not selector.select(left):
                child.kill()
                fail(f"no answer to request {request_id} within {DEADLINE_S} s; stderr: {stderr_tail()}")
            chunk = os.read(child.stdout.fileno(), 65536)
            if not chunk:
                fail(f"the server closed stdout (exit {child.wait()}); stderr: {stderr_tail()}")
            buffer += chunk

    send({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "mcp-check", "version": "1"},
        },
    })
    result = receive(1).get("result") or fail("initialize returned no result")
    server = result.get("serverInfo", {})
    if server.get("name") != "agg":
        fail(f"serverInfo is {server}, not agg's")
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_tasks", "arguments": {}}})
    listed = receive(2).get("result") or fail("list_tasks returned no result")
    names = [t.get("unique_name") for t in (listed.get("structuredContent") or {}).get("tasks", [])]
    if "hello" not in names:
        fail(f"list_tasks does not list the Makefile's hello: {names}")

    below = descendants(child.pid)
    if stop_with_signal:
        child.send_signal(signal.SIGTERM)
    else:
        child.stdin.close()
    try:
        code = child.wait(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        child.kill()
        fail("the server did not exit after " + ("SIGTERM" if stop_with_signal else "stdin closed"))
    end = time.monotonic() + 10
    while any(alive(p) for p in below) and time.monotonic() < end:
        time.sleep(0.05)
    left = [p for p in below if alive(p)]
    if left:
        fail(f"processes the server started outlived it: {left}")
    how = "SIGTERM" if stop_with_signal else "end of stdin"
    print(
        f"{server.get('name')} {server.get('version')} (protocol {result.get('protocolVersion')}): "
        f"initialize, list_tasks ({len(names)} tasks), exit {code} on {how}"
    )


main()
