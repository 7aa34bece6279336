#!/usr/bin/env python3
"""Compares what two agg binaries print, byte for byte, on many repositories.

A restructuring changes no output: build agg before the change (keep a copy of the binary),
build it after, and run

    scripts/same-output.py OLD_AGG NEW_AGG [DIR ...]

DIR defaults to every directory under fixtures/ (each fixture and its first-level
subdirectories); give real repositories too (`fetch`ed snapshots, the generated monorepo).
Each directory is listed as a repository root of its own (`--root`). For each it compares `agg list --json`, `agg list` (text, no colour, 100 columns),
`agg list --diagnostics`, and `agg describe NAME` in text and JSON for every task (at most
`--names` of them), then one MCP session: `tools/list`, `list_tasks` with no arguments, a
query, a path, a runner, a bad runner, `describe_task` and `task_start` of each of those names
(refused: the allowlist is empty, so nothing runs), and an unknown name. Exit status 1 when
anything differs; each difference is printed with both sides cut to a few lines.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def directories(root):
    out = []
    for base in sorted(os.listdir(root)):
        d = os.path.join(root, base)
        if not os.path.isdir(d):
            continue
        out.append(d)
        for sub in sorted(os.listdir(d)):
            p = os.path.join(d, sub)
            if os.path.isdir(p) and not sub.startswith("."):
                out.append(p)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("dirs", nargs="*")
    parser.add_argument("--names", type=int, default=40, help="tasks described per directory")
    args = parser.parse_args()
    # The binaries run from each directory: paths relative to here are made absolute.
    args.old, args.new = (os.path.abspath(b) if os.sep in b else b for b in (args.old, args.new))
    dirs = [os.path.abspath(d) for d in args.dirs or directories(os.path.join(here, "..", "fixtures"))]
    state = tempfile.mkdtemp(prefix="agg-same-output-")
    env = dict(
        os.environ,
        NO_COLOR="1",
        COLUMNS="100",
        AGG_ALLOWLIST=os.path.join(state, "allowlist.toml"),
        XDG_STATE_HOME=os.path.join(state, "state"),
        XDG_CONFIG_HOME=os.path.join(state, "config"),
        AGG_NO_CACHE="1",
    )

    def run(binary, argv, cwd):
        try:
            p = subprocess.run(
                [binary] + argv + ["--root", cwd], cwd=cwd, env=env, capture_output=True, timeout=300
            )
        except subprocess.TimeoutExpired:
            return ("timeout", b"", b"")
        return (p.returncode, p.stdout, p.stderr)

    def names_of(binary, d):
        out = run(binary, ["list", "--json"], d)[1]
        try:
            return [t["unique_name"] for t in json.loads(out or b"{}").get("tasks", [])]
        except ValueError:
            return []

    def mcp(binary, d, names, files):
        reqs = [
            {"method": "tools/list", "params": {}},
            {"method": "tools/call", "params": {"name": "list_tasks", "arguments": {}}},
            {"method": "tools/call", "params": {"name": "list_tasks", "arguments": {"query": "test build"}}},
            {"method": "tools/call", "params": {"name": "list_tasks", "arguments": {"runner": "make"}}},
            {"method": "tools/call", "params": {"name": "list_tasks", "arguments": {"runner": "no-such-runner"}}},
            {"method": "tools/call", "params": {"name": "task_start", "arguments": {"unique_name": "no-such-task-x"}}},
        ]
        for f in files:
            reqs.append({"method": "tools/call", "params": {"name": "list_tasks", "arguments": {"path": f}}})
        for n in names:
            reqs.append({"method": "tools/call", "params": {"name": "describe_task", "arguments": {"unique_name": n}}})
            reqs.append({"method": "tools/call", "params": {"name": "task_start", "arguments": {"unique_name": n}}})
        proc = subprocess.Popen(
            [binary, "mcp", "--root", d],
            cwd=d,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        answers = {}

        def send(msg):
            proc.stdin.write((json.dumps(msg) + "\n").encode())
            proc.stdin.flush()

        def answer(want):
            while True:
                line = proc.stdout.readline()
                if not line:
                    return None
                try:
                    m = json.loads(line)
                except ValueError:
                    continue
                if m.get("id") == want:
                    return m

        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "same-output", "version": "0"}}})
        answers["initialize"] = json.dumps(answer(0), sort_keys=True)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for i, r in enumerate(reqs, start=1):
            send(dict(r, jsonrpc="2.0", id=i))
            m = answer(i)
            key = json.dumps(r["params"], sort_keys=True)
            answers[key] = json.dumps(m and m.get("result", m.get("error")), sort_keys=True)
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        return answers

    def text(b):
        return b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b)

    def show(x, y):
        """Where two outputs first differ, with a little context on each side."""
        x, y = text(x), text(y)
        at = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
        start = max(0, at - 120)
        cut = lambda t: ("…" if start else "") + t[start : at + 200].replace("\n", "\\n") + ("…" if len(t) > at + 200 else "")
        return f"    before: {cut(x)}\n    after:  {cut(y)}"

    differences = 0
    for d in dirs:
        names = names_of(args.new, d)[: args.names]
        listed = run(args.new, ["list", "--json"], d)[1]
        try:
            files = sorted({t["file_path"] for t in json.loads(listed or b"{}").get("tasks", [])})[:5]
        except ValueError:
            files = []
        commands = [["list", "--json"], ["list"], ["list", "--diagnostics"]]
        commands += [["describe", n] for n in names] + [["describe", n, "--json"] for n in names]
        for argv in commands:
            a, b = run(args.old, argv, d), run(args.new, argv, d)
            if a != b:
                differences += 1
                print(f"DIFF {d}: agg {' '.join(argv)}")
                for label, x, y in (("status", a[0], b[0]), ("stdout", a[1], b[1]), ("stderr", a[2], b[2])):
                    if x != y:
                        print(f"  {label}:\n{show(x, y)}")
        a, b = mcp(args.old, d, names, files), mcp(args.new, d, names, files)
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                differences += 1
                print(f"DIFF {d}: mcp {key}\n{show(a.get(key, ''), b.get(key, ''))}")
    print(f"{len(dirs)} directories compared, {differences} differences")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
