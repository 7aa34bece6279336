#!/usr/bin/env python3
"""Do the fixtures' tasks that pass outside the sandbox pass inside it?

Runs every task of `fixtures/` that agg can run here (runner installed; not a service, not
interactive, not asking for confirmation, not an editor's) with `agg run` in one copy of the
fixtures and with `agg run --sandbox` in another, in the same order: the policy an agent's run
gets (the default one: the allowlist used is empty). A task compared is one that passed
outside the sandbox. Prints each task whose result
differs, with the end of what it printed, and the totals.

    . scripts/runners.sh; scripts/bench/sandbox-fixtures.py [--timeout 30] [--only PREFIX]

The binary is $AGG_BIN, else target/release/agg, else target/debug/agg.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def agg_binary() -> str:
    if os.environ.get("AGG_BIN"):
        return os.environ["AGG_BIN"]
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "agg"
        if path.is_file():
            return str(path)
    sys.exit("build agg first (cargo build --release)")


def run(agg, root, name, sandbox, timeout, env):
    args = [agg, "run", "--root", str(root)]
    if sandbox:
        args.append("--sandbox")
    args.append(name)
    start = time.monotonic()
    try:
        done = subprocess.run(
            args,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            env=env,
            # The task's process group is agg's: a timeout kills agg, which ends its task.
            start_new_session=True,
        )
        code = done.returncode
        out = (done.stdout + done.stderr).decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        code = "timeout"
        out = ((e.stdout or b"") + (e.stderr or b"")).decode(errors="replace")
    return code, out, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--only", default="", help="only tasks whose unique name starts with this")
    opts = parser.parse_args()
    agg = agg_binary()
    work = Path(tempfile.mkdtemp(prefix="agg-sandbox-fixtures-"))
    outside, inside = work / "outside", work / "inside"
    for copy in (outside, inside):
        shutil.copytree(ROOT / "fixtures", copy, symlinks=True)
    config = Path(tempfile.mkdtemp(prefix="agg-sandbox-config-", dir=ROOT / "target"))
    env = dict(os.environ, AGG_ALLOWLIST=str(config / "allowlist.toml"), NO_COLOR="1")
    listing = subprocess.run(
        [agg, "list", str(outside), "--json"], capture_output=True, check=True, env=env
    )
    tasks = [
        t
        for t in json.loads(listing.stdout)["tasks"]
        if t.get("runner_available")
        and not t.get("service")
        and not t.get("interactive")
        and not t.get("confirm")
        and not t.get("not_runnable")
        and t["unique_name"].startswith(opts.only)
    ]
    print(f"agg: {agg}\n{len(tasks)} runnable tasks in fixtures/ (timeout {opts.timeout:g} s)")
    passed_outside = passed_both = 0
    differ = []
    failing_outside = []
    for task in tasks:
        name = task["unique_name"]
        code, out, secs = run(agg, outside, name, False, opts.timeout, env)
        # Every task runs in both copies, in the same order, so what one task leaves behind
        # for the next (a generated file) is the same on both sides.
        code_in, out_in, secs_in = run(agg, inside, name, True, opts.timeout, env)
        if code != 0:
            failing_outside.append((name, code))
            continue
        passed_outside += 1
        code = code_in
        if code == 0:
            passed_both += 1
        else:
            differ.append((task, code, out_in))
        print(f"  {name:<60} outside 0 ({secs:.1f}s)  sandboxed {code} ({secs_in:.1f}s)", flush=True)
    print(f"\n{passed_outside} pass outside the sandbox; {passed_both} of them pass sandboxed")
    print(f"{len(failing_outside)} fail outside the sandbox too (not compared)")
    for task, code, out in differ:
        tail = "\n      ".join(out.strip().splitlines()[-8:])
        print(f"\nDIFFERS {task['unique_name']} ({task['runner']}: {task['command']}): exit {code}\n      {tail}")
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(config, ignore_errors=True)


if __name__ == "__main__":
    main()
