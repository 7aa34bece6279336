#!/usr/bin/env bash
# Benchmark: `agg list --json`, cold and warm, against `fd --type f` and `rg --files` on the
# same trees, in the same run.
#
#   scripts/bench/list.sh [--regen] [--check] [--runs N] [--no-build] [--large]
#
# 1. builds agg in release (`cargo build --release`, skipped with --no-build);
# 2. generates the benchmark monorepo with scripts/gen-monorepo.py into
#    target/bench-monorepo (reused when present; --regen rebuilds it; AGG_BENCH_MONOREPO
#    picks another place), plus target/bench-monorepo-make500 (one 500-target Makefile);
#    with --large, also trees of about 500,000 and 2,000,000 files made of hard-linked
#    copies of the monorepo (target/bench-tree-500k, target/bench-tree-2m);
# 3. times, round-robin (scripts/bench/interleave.py: one run of each command in turn, 2
#    warmup rounds, N rounds, default 10, no intermediate shell, output to /dev/null, so that
#    the load of a shared machine falls on every command alike), in each tree:
#      cold  `agg list --json --no-cache`   (walks and parses everything)
#      warm  `agg list --json`              (the scan kept in the cache, checked with stat;
#                                            the warmup runs write it)
#      `fd --type f` and `rg --files`       (the references); `rg --files --hidden` for
#                                            information, since agg walks hidden files too
#    and, on the monorepo, in the same rounds, a shell completion of `agg run b` (warm), as
#    bash asks for it;
# 4. prints mean/median/stddev, the ratios of the medians against the targets with
#    PASS/FAIL (warm <= 0.3x fd, cold <= 1.2x fd; cold <= 1.5x rg, the earlier target; a
#    completion under 30 ms), agg's peak RSS, the task count, and asserts that the warm and
#    cold listings are the same and that no task comes from a gitignored node_modules/ or
#    dist/ directory.
#
# A missed timing target is reported, not fatal: the exit status is 0 unless --check is
# given. A wrong listing is a correctness bug and always fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

REGEN=0 CHECK=0 RUNS=10 BUILD=1 LARGE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --regen) REGEN=1 ;;
    --check) CHECK=1 ;;
    --runs) RUNS=$2; shift ;;
    --runs=*) RUNS=${1#--runs=} ;;
    --no-build) BUILD=0 ;;
    --large) LARGE=1 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "list.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ "$RUNS" -ge 10 ] 2>/dev/null || { echo "list.sh: --runs must be at least 10" >&2; exit 2; }

. scripts/bench/tools.sh
for tool in rg python3 git; do
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

# A tree of COPIES hard-linked copies of the monorepo (a git repository of its own, so that
# agg takes it as the root).
large_tree() { # dir copies
  local dir=$1 copies=$2 i
  if [ -e "$dir/.done" ] && [ "$(cat "$dir/.done")" = "$copies" ]; then
    return
  fi
  echo "+ $copies hard-linked copies of the monorepo into $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  git -C "$dir" init -q
  for i in $(seq 1 "$copies"); do
    cp -al "$MONO" "$dir/copy-$i"
  done
  echo "$copies" > "$dir/.done"
}
TREES=(mono "$MONO" make500 "$MAKE500")
if [ "$LARGE" = 1 ]; then
  large_tree "$ROOT/target/bench-tree-500k" 9
  large_tree "$ROOT/target/bench-tree-2m" 36
  TREES+=(large500k "$ROOT/target/bench-tree-500k" large2m "$ROOT/target/bench-tree-2m")
fi

TMP=$(mktemp -d)
SERVER=
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$TMP"' EXIT
# The warm runs' cache (in agg's state directory), apart from the person's own.
export XDG_STATE_HOME=$TMP/state
# No running agg mcp answers the warm runs (its sockets are looked for here)…
export XDG_RUNTIME_DIR=$TMP/run-none
# …but one does answer the served completion, from here.
SERVED_RUN=$TMP/run-served
mkdir -p -m 700 "$XDG_RUNTIME_DIR" "$SERVED_RUN"

# Peak RSS of one `agg list --json` run (ARGS after the tree), in KiB (max over 3 runs).
peak_rss() { # dir args...
  local dir=$1 max=0 kb i; shift
  for i in 1 2 3; do
    if [ -x /usr/bin/time ]; then
      kb=$(cd "$dir" && /usr/bin/time -f '%M' "$AGG" list --json "$@" 2>&1 >/dev/null | tail -n 1)
    else
      kb=$(cd "$dir" && python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$AGG" list --json "$@")
    fi
    [ "$kb" -gt "$max" ] && max=$kb
  done
  echo "$max"
}
RSS_HOW=$([ -x /usr/bin/time ] && echo "/usr/bin/time -f %M" || echo "getrusage(RUSAGE_CHILDREN).ru_maxrss")

# What bash runs at a TAB after `agg run b` (see `agg completions bash`).
COMPLETE_ENV=(_CLAP_IFS=$'\v' _CLAP_COMPLETE_INDEX=2 _CLAP_COMPLETE_COMP_TYPE=9 _CLAP_COMPLETE_SPACE=false AGG_COMPLETE=bash)

bench_tree() { # name dir
  local name=$1 dir=$2 runs=$RUNS
  local commands=(
    "agg list --json (cold)=$AGG list --json --no-cache"
    "agg list --json (warm)=$AGG list --json"
    "fd --type f=$FD --type f"
    "rg --files=rg --files"
    "rg --files --hidden (info)=rg --files --hidden"
  )
  # The large trees take seconds a run.
  case "$name" in large*) runs=5 ;; esac
  # On the monorepo, a shell completion too, in the same rounds: from the cache, and answered
  # by a running `agg mcp`.
  if [ "$name" = mono ]; then
    commands+=("completion of agg run b (warm)=env ${COMPLETE_ENV[*]} $AGG -- agg run b")
    commands+=("completion of agg run b (served)=env XDG_RUNTIME_DIR=$SERVED_RUN ${COMPLETE_ENV[*]} $AGG -- agg run b")
  fi
  echo "+ (cd $dir && interleave.py: ${#commands[@]} commands round-robin, 2 warmup rounds, $runs rounds)" >&2
  (cd "$dir" && python3 "$ROOT/scripts/bench/interleave.py" "$TMP/$name.json" "$runs" 2 "${commands[@]}")
  (cd "$dir" && "$AGG" list --json --no-cache 2>"$TMP/$name.stderr" >"$TMP/$name.list.json")
  (cd "$dir" && "$AGG" list --json 2>/dev/null >"$TMP/$name.warm.json")
  (cd "$dir" && "$FD" --type f | wc -l) >"$TMP/$name.fdfiles"
  peak_rss "$dir" --no-cache >"$TMP/$name.rss"
  peak_rss "$dir" >"$TMP/$name.warm.rss"
  if [ "$name" = mono ]; then
    (cd "$dir" && env "${COMPLETE_ENV[@]}" "$AGG" -- agg run b | tr '\v' '\n' | wc -l) >"$TMP/completion.count"
  fi
}

# An `agg mcp` on the monorepo, as an agent would have it, for the served completion; it is
# serving once a completion's debug log says it answered.
echo "+ agg mcp --root $MONO (for the served completion)" >&2
# Its stdin is a fifo held open by this script: it ends when the script does.
mkfifo "$TMP/mcp.in"
XDG_RUNTIME_DIR=$SERVED_RUN "$AGG" mcp --root "$MONO" <"$TMP/mcp.in" >/dev/null 2>"$TMP/mcp.stderr" &
SERVER=$!
exec 9>"$TMP/mcp.in"
for _ in $(seq 1 300); do
  if (cd "$MONO" && env XDG_RUNTIME_DIR="$SERVED_RUN" AGG_LOG=agg=debug "${COMPLETE_ENV[@]}" "$AGG" -- agg run b 2>&1 >/dev/null) | grep -q "answered by"; then
    break
  fi
  sleep 0.2
done

echo "load average before timing: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 0; i < ${#TREES[@]}; i += 2)); do
  bench_tree "${TREES[i]}" "${TREES[i + 1]}"
done
echo "load average after timing: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$TMP" "$CHECK" "$RSS_HOW" "$MONO" "${TREES[@]}" <<'PY'
import json, os, sys, collections
tmp, check, rss_how, mono = sys.argv[1:5]
trees = sys.argv[5:]
WARM, COLD, RG, COMPLETION_MS = 0.3, 1.2, 1.5, 30.0
fails = []   # timing targets missed
broken = []  # correctness assertions

def ms(x):
    return f"{x * 1000:9.1f} ms"

def verdict(ok):
    return "PASS" if ok else "FAIL"

def table(name, dir_):
    res = {r["command"]: r for r in json.load(open(f"{tmp}/{name}.json"))["results"]}
    files = int(open(f"{tmp}/{name}.fdfiles").read())
    print(f"\n== {name}: {dir_} ({files} files listed by fd --type f) ==")
    print(f"{'command':<28} {'mean':>12} {'median':>12} {'stddev':>12} {'min':>12} {'max':>12} {'runs':>5}")
    for cmd, r in res.items():
        if cmd.startswith("completion"):
            continue
        print(f"{cmd:<28} {ms(r['mean']):>12} {ms(r['median']):>12} {ms(r['stddev'] or 0):>12} {ms(r['min']):>12} {ms(r['max']):>12} {len(r['times']):>5}")
    cold, warm = res["agg list --json (cold)"], res["agg list --json (warm)"]
    fd, rg, rgh = res["fd --type f"], res["rg --files"], res["rg --files --hidden (info)"]
    # The fd targets are for trees of many files; a one-file tree takes milliseconds either way.
    targets = (
        ("warm agg list --json / fd --type f", warm, fd, WARM),
        ("cold agg list --json / fd --type f", cold, fd, COLD),
        ("cold agg list --json / rg --files", cold, rg, RG),
    )
    for label, agg, ref, target in targets:
        ratio = agg["median"] / ref["median"]
        if name == "make500" and "fd" in label:
            print(f"[{name}] {label}, medians: {ratio:.2f}x (info)")
            continue
        ok = ratio <= target
        if not ok:
            fails.append(f"{name}: {label} {ratio:.2f}x > {target}x")
        print(f"[{name}] {label}, medians: {ratio:.2f}x (means: {agg['mean'] / ref['mean']:.2f}x)   target <= {target}x   {verdict(ok)}")
    print(f"[{name}] warm / cold, medians: {warm['median'] / cold['median']:.2f}x; cold / rg --files --hidden: {cold['median'] / rgh['median']:.2f}x (info)")
    rss, warm_rss = (int(open(f"{tmp}/{name}{k}.rss").read()) for k in ("", ".warm"))
    print(f"[{name}] peak RSS: cold {rss / 1024:.1f} MiB, warm {warm_rss / 1024:.1f} MiB (max of 3 runs, {rss_how})")
    listing = json.load(open(f"{tmp}/{name}.list.json"))
    same = open(f"{tmp}/{name}.list.json", "rb").read() == open(f"{tmp}/{name}.warm.json", "rb").read()
    if not same:
        broken.append(f"{name}: the warm listing differs from the cold one")
    print(f"ASSERT [{name}] warm listing == cold listing, byte for byte: {verdict(same)}")
    tasks = listing["tasks"]
    by_runner = collections.Counter(t["runner"] for t in tasks)
    print(f"[{name}] tasks found: {len(tasks)}  (" + ", ".join(f"{k} {v}" for k, v in sorted(by_runner.items())) + f"); diagnostics: {len(listing['diagnostics'])}")
    stderr = open(f"{tmp}/{name}.stderr").read().strip()
    if stderr:
        lines = stderr.splitlines()
        print(f"agg stderr: {len(lines)} lines, first: {lines[0]}")
    bad = [t for t in tasks
           if any(seg in ("node_modules", "dist") for seg in t["file_path"].split("/") + t["dir"].split("/"))]
    if bad:
        broken.append(f"{name}: {len(bad)} tasks from gitignored node_modules/ or dist/, e.g. {bad[0]['file_path']}")
    if name != "make500":
        print(f"ASSERT [{name}] no task from node_modules/ or dist/: {verdict(not bad)}")
    return listing, by_runner

for name, dir_ in zip(trees[::2], trees[1::2]):
    listing, by_runner = table(name, dir_)
    if name == "mono":
        counts_path = mono + "-counts.json"
        if os.path.exists(counts_path):
            c = json.load(open(counts_path))
            d = c["declared"]
            pj = sum(by_runner.get(r, 0) for r in ("npm", "pnpm", "yarn", "bun"))
            ok = pj == d["package_json_scripts"]
            print(f"package.json scripts listed: {pj}, generated (hooks excluded): {d['package_json_scripts']}   {'OK' if ok else 'MISMATCH'}")
            if not ok:
                broken.append("package.json script count mismatch")
    if name == "make500":
        print(f"make tasks in the 500-target Makefile: {by_runner.get('make', 0)} (500 expected)")

count = int(open(f"{tmp}/completion.count").read())
mono_results = json.load(open(f"{tmp}/mono.json"))["results"]
fd_median = next(r for r in mono_results if r["command"] == "fd --type f")["median"]
print()
for comp in (r for r in mono_results if r["command"].startswith("completion")):
    how = "served by a running agg mcp" if "served" in comp["command"] else "warm, no agg mcp"
    median_ms = comp["median"] * 1000
    ok = median_ms < COMPLETION_MS
    if not ok:
        fails.append(f"completion ({how}) {median_ms:.1f} ms >= {COMPLETION_MS} ms")
    print(f"[mono] completion of `agg run b` ({how}, {count} candidates): median {median_ms:.1f} ms, mean {comp['mean'] * 1000:.1f} ms ± {(comp['stddev'] or 0) * 1000:.1f}, {comp['median'] / fd_median:.2f}x fd   target < {COMPLETION_MS:.0f} ms   {verdict(ok)}")

print("\nSUMMARY list: " + ("all targets met" if not fails else "; ".join(fails)))
if broken:
    print("BROKEN: " + "; ".join(broken))
    sys.exit(1)
if fails and check == "1":
    sys.exit(1)
PY
