#!/usr/bin/env bash
# Benchmark: what `--affected` and the workspace graph cost beyond the listing.
#
#   scripts/bench/affected.sh [--regen] [--runs N] [--no-build]
#
# 1. builds agg in release (`cargo build --release`, skipped with --no-build);
# 2. generates the benchmark monorepo with scripts/gen-monorepo.py into
#    target/bench-affected (its own copy, committed with git, so the listing benchmark's tree
#    is left as it is; --regen rebuilds it; AGG_BENCH_AFFECTED picks another place);
# 3. edits one file of a leaf package (nothing depends on it), of a middle one (it depends
#    and is depended on) and of the base (the most dependents), one at a time, and times,
#    with hyperfine (warmup 2, N runs, default 10), in the same run:
#      `agg list --json` (the listing), `agg list --affected --json` (listing, changes, graph
#      and affected tasks), `agg graph --json` (listing and graph), and as references
#      `git status --porcelain -uall` (what reading the changes compares with) and
#      `rg --files`;
# 4. prints each median, the cost beyond the listing (affected − list, graph − list) against
#    the target (under 100 ms), the tasks and packages found, and the ratios to the references.
# A missed target is reported, not fatal.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

REGEN=0 RUNS=10 BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --regen) REGEN=1 ;;
    --runs) RUNS=$2; shift ;;
    --runs=*) RUNS=${1#--runs=} ;;
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "affected.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

. scripts/bench/tools.sh
for tool in hyperfine rg python3 git; do
  command -v "$tool" >/dev/null || { echo "affected.sh: $tool is required" >&2; exit 2; }
done
if [ "$BUILD" = 1 ]; then
  echo "+ cargo build --release" >&2
  cargo build --release --quiet
fi
AGG=$ROOT/target/release/agg
[ -x "$AGG" ] || { echo "affected.sh: $AGG is missing (build it first)" >&2; exit 2; }

MONO=${AGG_BENCH_AFFECTED:-$ROOT/target/bench-affected}
if [ "$REGEN" = 1 ] || [ ! -e "$MONO/.agg-bench-monorepo" ] || ! git -C "$MONO" rev-parse -q --verify HEAD >/dev/null; then
  echo "+ python3 scripts/gen-monorepo.py $MONO --force" >&2
  python3 scripts/gen-monorepo.py "$MONO" --force --quiet
  git -C "$MONO" add -A >/dev/null
  git -C "$MONO" -c user.email=bench@example.com -c user.name=bench -c commit.gpgsign=false commit -qm generated
else
  echo "reusing $MONO (pass --regen to rebuild it)"
  git -C "$MONO" checkout -q -- .
fi

TMP=$(mktemp -d)
trap 'git -C "$MONO" checkout -q -- . 2>/dev/null; rm -rf "$TMP"' EXIT

# The packages to edit, from agg's own graph: a leaf, a middle, the base.
"$AGG" graph --json --root "$MONO" >"$TMP/graph.json"
python3 - "$TMP/graph.json" >"$TMP/picks" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
pk = [p for p in g["packages"] if p["ecosystem"] == "npm" and p["dir"].startswith("packages/")]
leaf = next(p for p in pk if not p["dependents"] and p["dependencies"])
middle = next(p for p in pk if p["dependents"] and p["dependencies"])
base = max(pk, key=lambda p: len(p["dependents"]))
for name, p in (("leaf", leaf), ("middle", middle), ("base", base)):
    print(name, p["dir"])
PY
cat "$TMP/picks" >&2

echo "load average before timing: $(cut -d' ' -f1-3 /proc/loadavg)"
while read -r what dir; do
  file="$MONO/$dir/package.json"
  cp "$file" "$TMP/saved"
  python3 -c 'import json,sys; p=sys.argv[1]; d=json.load(open(p)); d["description"]="edited"; json.dump(d, open(p,"w"), indent=2)' "$file"
  (cd "$MONO" && "$AGG" list --affected --json >"$TMP/$what.affected.json")
  echo "+ ($what: $dir) hyperfine -N --warmup 2 --runs $RUNS ..." >&2
  (cd "$MONO" && hyperfine -N --style basic --warmup 2 --runs "$RUNS" \
      --export-json "$TMP/$what.json" \
      -n "agg list --json" "$AGG list --json" \
      -n "agg list --affected --json" "$AGG list --affected --json" \
      -n "agg graph --json" "$AGG graph --json" \
      -n "git status --porcelain -uall" "git status --porcelain -uall" \
      -n "rg --files" "rg --files" >&2)
  cp "$TMP/saved" "$file"
done <"$TMP/picks"

python3 - "$TMP" "$RUNS" <<'PY'
import json, sys
tmp, runs = sys.argv[1], sys.argv[2]
TARGET = 0.100
fails = []
for line in open(f"{tmp}/picks"):
    what, dir_ = line.split()
    res = {r["command"]: r for r in json.load(open(f"{tmp}/{what}.json"))["results"]}
    med = {k: v["median"] for k, v in res.items()}
    aff = json.load(open(f"{tmp}/{what}.affected.json"))
    tasks = aff["tasks"]
    dirs = {t["dir"] for t in tasks if t["distance"] is not None}
    far = max((t["distance"] for t in tasks if t["distance"] is not None), default=0)
    print(f"\n== an edit of {what} package {dir_}: {len(aff['changed'])} changed file(s) ==")
    for k, v in res.items():
        print(f"{k:<32} median {v['median'] * 1000:8.1f} ms  mean {v['mean'] * 1000:8.1f} ms  stddev {(v['stddev'] or 0) * 1000:6.1f} ms  ({len(v['times'])} runs)")
    beyond = med["agg list --affected --json"] - med["agg list --json"]
    graph = med["agg graph --json"] - med["agg list --json"]
    ok = beyond <= TARGET
    if not ok:
        fails.append(f"{what}: {beyond * 1000:.1f} ms beyond the listing")
    print(f"[{what}] affected tasks: {len(tasks)} in {len(dirs)} package directories, farthest {far} step(s) away, root tasks last")
    print(f"[{what}] --affected beyond the listing: {beyond * 1000:.1f} ms (target < {TARGET * 1000:.0f} ms)  {'PASS' if ok else 'FAIL'}")
    print(f"[{what}] graph beyond the listing: {graph * 1000:.1f} ms")
    print(f"[{what}] agg list --affected / git status -uall: {med['agg list --affected --json'] / med['git status --porcelain -uall']:.2f}x; agg list / rg --files: {med['agg list --json'] / med['rg --files']:.2f}x")
print()
print("affected: " + ("every target met" if not fails else "targets missed: " + "; ".join(fails)))
PY
