#!/usr/bin/env python3
"""Times commands round-robin: one run of each in turn, for ROUNDS rounds after WARMUP
rounds, so that a shared machine's load falls on every command alike (hyperfine runs one
command's series after another's).

    interleave.py OUT.json ROUNDS WARMUP NAME=COMMAND... [-- ENV=VALUE...]

Each COMMAND is split with shlex and run without a shell, its output to /dev/null, from the
current directory. Prints a table and writes OUT.json in the shape of hyperfine's
--export-json (results: command, mean, median, stddev, min, max, times), which the
benchmark scripts read. A command that fails stops the run.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def main():
    out, rounds, warmup = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    specs = sys.argv[4:]
    env = dict(os.environ)
    if "--" in specs:
        cut = specs.index("--")
        for pair in specs[cut + 1:]:
            key, _, value = pair.partition("=")
            env[key] = value
        specs = specs[:cut]
    commands = []
    for spec in specs:
        name, _, command = spec.partition("=")
        commands.append((name, shlex.split(command)))
    times = {name: [] for name, _ in commands}
    for round_ in range(warmup + rounds):
        for name, argv in commands:
            began = time.perf_counter()
            done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            took = time.perf_counter() - began
            if done.returncode != 0:
                sys.exit(f"interleave.py: {name} failed with status {done.returncode}")
            if round_ >= warmup:
                times[name].append(took)
    results = []
    print(f"{'command':<34} {'median':>10} {'mean':>10} {'stddev':>9} {'min':>9} {'max':>9}", file=sys.stderr)
    for name, _ in commands:
        t = times[name]
        r = {
            "command": name,
            "mean": statistics.mean(t),
            "median": statistics.median(t),
            "stddev": statistics.stdev(t) if len(t) > 1 else 0.0,
            "min": min(t),
            "max": max(t),
            "times": t,
        }
        results.append(r)
        print(f"{name:<34} {r['median'] * 1000:8.1f}ms {r['mean'] * 1000:8.1f}ms {r['stddev'] * 1000:7.1f}ms {r['min'] * 1000:7.1f}ms {r['max'] * 1000:7.1f}ms", file=sys.stderr)
    with open(out, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
