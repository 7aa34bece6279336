#!/usr/bin/env bash
# Benchmark: `agg list --json` against `rg --files` on the same trees.
#
#   scripts/bench/list.sh [--regen] [--check] [--runs N] [--no-build]
#
# 1. builds agg in release (`cargo build --release`, skipped with --no-build);
# 2. generates the benchmark monorepo with scripts/gen-monorepo.py into
#    target/bench-monorepo (reused when present; --regen rebuilds it; AGG_BENCH_MONOREPO
#    picks another place), plus target/bench-monorepo-make500 (one 500-target Makefile);
# 3. times, with hyperfine (warmup 2, N runs, default 10, no intermediate shell, output to
#    /dev/null), `agg list --json` against `rg --files` in each tree; `rg --files --hidden`
#    is shown too, for information, because agg walks hidden files (.cargo/, .github/) and
#    plain `rg --files` does not;
# 4. prints mean/median/stddev, the agg/rg ratio of the medians against the target
#    (<= 1.5x) with PASS/FAIL, agg's peak RSS, the task count, and asserts that no task
#    comes from a gitignored node_modules/ or dist/ directory.
#
# A missed timing target is reported, not fatal: the exit status is 0 unless --check is
# given. A task listed from node_modules/ or dist/ is a correctness bug and always fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

REGEN=0 CHECK=0 RUNS=10 BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --regen) REGEN=1 ;;
    --check) CHECK=1 ;;
    --runs) RUNS=$2; shift ;;
    --runs=*) RUNS=${1#--runs=} ;;
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "list.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ "$RUNS" -ge 10 ] 2>/dev/null || { echo "list.sh: --runs must be at least 10" >&2; exit 2; }

. scripts/bench/tools.sh
for tool in hyperfine rg python3 git; do
  command -v "$tool" >/dev/null || { echo "list.sh: $tool is required" >&2; exit 2; }
done
# The runners, as on a developer machine (agg reports whether each is installed).
for d in /tmp/tools/venv/bin /tmp/tools/npm/node_modules/.bin "$ROOT/.tools/venv/bin" "$ROOT/.tools/npm/node_modules/.bin"; do
  [ -d "$d" ] && PATH="$d:$PATH"
done
export PATH

if [ "$BUILD" = 1 ]; then
  echo "+ cargo build --release" >&2
  cargo build --release --quiet
fi
AGG=$ROOT/target/release/agg
[ -x "$AGG" ] || { echo "list.sh: $AGG is missing (build it first)" >&2; exit 2; }

MONO=${AGG_BENCH_MONOREPO:-$ROOT/target/bench-monorepo}
MAKE500=$MONO-make500
if [ "$REGEN" = 1 ] || [ ! -e "$MONO/.agg-bench-monorepo" ] || [ ! -e "$MAKE500/Makefile" ]; then
  echo "+ python3 scripts/gen-monorepo.py $MONO" >&2
  python3 scripts/gen-monorepo.py "$MONO"
else
  echo "reusing $MONO (pass --regen to rebuild it)"
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Peak RSS of one `agg list --json` run, in KiB (max over 3 runs).
peak_rss() {
  local dir=$1 max=0 kb i
  for i in 1 2 3; do
    if [ -x /usr/bin/time ]; then
      kb=$(cd "$dir" && /usr/bin/time -f '%M' "$AGG" list --json 2>&1 >/dev/null | tail -n 1)
    else
      kb=$(cd "$dir" && python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$AGG" list --json)
    fi
    [ "$kb" -gt "$max" ] && max=$kb
  done
  echo "$max"
}
RSS_HOW=$([ -x /usr/bin/time ] && echo "/usr/bin/time -f %M" || echo "getrusage(RUSAGE_CHILDREN).ru_maxrss")

bench_pair() { # name dir
  local name=$1 dir=$2
  echo "+ (cd $dir && hyperfine -N --warmup 2 --runs $RUNS '$AGG list --json' 'rg --files' 'rg --files --hidden')" >&2
  (cd "$dir" && hyperfine -N --style basic --warmup 2 --runs "$RUNS" \
      --export-json "$TMP/$name.json" \
      -n "agg list --json" "$AGG list --json" \
      -n "rg --files" "rg --files" \
      -n "rg --files --hidden (info)" "rg --files --hidden" >&2)
  (cd "$dir" && "$AGG" list --json 2>"$TMP/$name.stderr" >"$TMP/$name.list.json")
  (cd "$dir" && rg --files | wc -l) >"$TMP/$name.rgfiles"
  peak_rss "$dir" >"$TMP/$name.rss"
}

echo "load average before timing: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_pair mono "$MONO"
bench_pair make500 "$MAKE500"

python3 - "$TMP" "$MONO" "$MAKE500" "$CHECK" "$RSS_HOW" "$RUNS" <<'PY'
import json, os, statistics, sys, collections
tmp, mono, make500, check, rss_how, runs = sys.argv[1:7]
TARGET = 1.5
fails = []   # timing targets missed
broken = []  # correctness assertions

def load(name):
    res = {r["command"]: r for r in json.load(open(f"{tmp}/{name}.json"))["results"]}
    return res

def ms(x):
    return f"{x * 1000:8.1f} ms"

def table(title, name, dir_, tag):
    res = load(name)
    files = int(open(f"{tmp}/{name}.rgfiles").read())
    print(f"\n== {title}: {dir_} ({files} files listed by rg --files) ==")
    print(f"{'command':<28} {'mean':>11} {'median':>11} {'stddev':>11} {'min':>11} {'max':>11} {'runs':>5}")
    for cmd, r in res.items():
        print(f"{cmd:<28} {ms(r['mean']):>11} {ms(r['median']):>11} {ms(r['stddev'] or 0):>11} {ms(r['min']):>11} {ms(r['max']):>11} {len(r['times']):>5}")
    agg, rg, rgh = res["agg list --json"], res["rg --files"], res["rg --files --hidden (info)"]
    ratio = agg["median"] / rg["median"]
    ok = ratio <= TARGET
    if not ok:
        fails.append(f"{tag}: agg/rg {ratio:.2f}x > {TARGET}x")
    print(f"[{tag}] agg list --json / rg --files, medians: {ratio:.2f}x (means: {agg['mean'] / rg['mean']:.2f}x)   target <= {TARGET}x   {'PASS' if ok else 'FAIL'}")
    print(f"[{tag}] agg list --json / rg --files --hidden, medians: {agg['median'] / rgh['median']:.2f}x (info)")
    rss = int(open(f"{tmp}/{name}.rss").read())
    print(f"[{tag}] agg list --json peak RSS: {rss / 1024:.1f} MiB (max of 3 runs, {rss_how})")
    listing = json.load(open(f"{tmp}/{name}.list.json"))
    tasks = listing["tasks"]
    by_runner = collections.Counter(t["runner"] for t in tasks)
    print(f"[{tag}] tasks found: {len(tasks)}  (" + ", ".join(f"{k} {v}" for k, v in sorted(by_runner.items())) + f"); diagnostics: {len(listing['diagnostics'])}")
    stderr = open(f"{tmp}/{name}.stderr").read().strip()
    if stderr:
        lines = stderr.splitlines()
        print(f"agg stderr: {len(lines)} lines, first: {lines[0]}")
    return listing, by_runner

listing, by_runner = table("generated monorepo", "mono", mono, "monorepo")
bad = [t for t in listing["tasks"]
       if any(seg in ("node_modules", "dist") for seg in t["file_path"].split("/"))
       or any(seg in ("node_modules", "dist") for seg in t["dir"].split("/"))]
if bad:
    broken.append(f"{len(bad)} tasks from gitignored node_modules/ or dist/, e.g. {bad[0]['file_path']}")
print(f"ASSERT [monorepo] no task from node_modules/ or dist/ (20,000 gitignored files, ~1,000 package.json with scripts): "
      f"{'PASS' if not bad else 'FAIL: ' + broken[-1]}")
counts_path = mono + "-counts.json"
if os.path.exists(counts_path):
    c = json.load(open(counts_path))
    d = c["declared"]
    pj = sum(by_runner.get(r, 0) for r in ("npm", "pnpm", "yarn", "bun"))
    ok = pj == d["package_json_scripts"]
    print(f"package.json scripts listed: {pj}, generated (hooks excluded): {d['package_json_scripts']}   {'OK' if ok else 'MISMATCH'}")
    print(f"generated (for reference): {d['make_described_targets']} described make targets in {c['makefiles']} Makefiles, "
          f"{d['just_recipes']} just recipes in {c['justfiles']} justfiles, {d['taskfile_tasks']} tasks in {c['taskfiles']} Taskfiles "
          f"(+ their includes), {d['xc_tasks']} xc tasks, {d['cargo_aliases']} cargo aliases in {c['cargo_configs']} .cargo/config.toml")
    if not ok:
        broken.append("package.json script count mismatch")

listing5, by5 = table("one Makefile with 500 described targets", "make500", make500, "make500")
print(f"make tasks in the 500-target Makefile: {by5.get('make', 0)} (500 expected once the make adapter is in)")

print("\nSUMMARY list: " + ("all targets met" if not fails else "; ".join(fails)))
if broken:
    print("BROKEN: " + "; ".join(broken))
    sys.exit(1)
if fails and check == "1":
    sys.exit(1)
PY
