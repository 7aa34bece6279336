#!/usr/bin/env python3
"""Looks for superlinear parse times that libFuzzer's small inputs hide.

    fuzz/scale.py TARGET [SAMPLE]

Takes up to SAMPLE (default 2000) inputs from corpus-live/TARGET and corpus/TARGET, repeats the
task-file part of each (the bytes before the first 0x00) to 16 KiB and to 64 KiB, runs the
fuzz target binary (built by run.sh) on both and prints the inputs whose time grows more than
8x for the 4x size and passes 200 ms at 64 KiB: a linear parser grows about 4x. Suspects are
written to scale-out/TARGET/ to re-time or minimize by hand.
"""

import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
target = sys.argv[1]
sample = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
binary = os.path.join(HERE, "target/x86_64-unknown-linux-gnu/release", target)
out = os.path.join(HERE, "scale-out", target)
os.makedirs(out, exist_ok=True)

inputs = []
for d in ("corpus-live", "corpus"):
    path = os.path.join(HERE, d, target)
    if os.path.isdir(path):
        inputs += [os.path.join(path, f) for f in os.listdir(path)]
random.seed(0)
random.shuffle(inputs)
inputs = inputs[:sample]


def grown(data, size):
    main, sep, rest = data.partition(b"\0")
    if not main or len(main) * 4 > size:
        return None
    return main * (size // len(main)) + sep + rest


def times(paths):
    """Milliseconds per file, as libFuzzer reports them."""
    found = {}
    for i in range(0, len(paths), 100):
        run = subprocess.run(
            [binary, "-timeout=60", "-rss_limit_mb=4096"] + paths[i : i + 100],
            capture_output=True,
            text=True,
            errors="replace",
        )
        for m in re.finditer(r"Executed (\S+) in (\d+) ms", run.stderr):
            found[m.group(1)] = int(m.group(2))
        if run.returncode != 0:
            print(f"target failed on a batch:\n{run.stderr[-2000:]}")
    return found


pairs = []
for n, path in enumerate(inputs):
    data = open(path, "rb").read()
    small, big = grown(data, 16 << 10), grown(data, 64 << 10)
    if small is None:
        continue
    files = []
    for tag, blob in (("16k", small), ("64k", big)):
        f = os.path.join(out, f"{n}-{tag}")
        open(f, "wb").write(blob)
        files.append(f)
    pairs.append((path, *files))

t = times([f for _, a, b in pairs for f in (a, b)])
suspects = []
for path, a, b in pairs:
    ta, tb = t.get(a, 0), t.get(b, 0)
    if tb > 200 and tb > 8 * max(ta, 1):
        suspects.append((tb, ta, path, b))
    else:
        os.remove(a)
        os.remove(b)
print(f"{target}: {len(pairs)} inputs grown, {len(suspects)} superlinear suspects")
for tb, ta, path, b in sorted(suspects, reverse=True)[:20]:
    print(f"  {ta:6} ms at 16 KiB -> {tb:6} ms at 64 KiB  {os.path.relpath(path, HERE)}  ({b})")
