#!/usr/bin/env bash
# Fuzzes agg's adapters on the stable toolchain.
#
#   fuzz/run.sh [SECONDS] [TARGETS...]
#
# Runs each target for SECONDS (default 600) and prints, per target, the number of
# executions and whether anything was found. Targets default to all of them. Environment:
#   PARALLEL=N    run up to N targets at once (default 1; the CI machine has 2 cores)
#   KEEP_GOING=1  do not stop at the first finding (libFuzzer fork mode, -ignore_crashes …)
#   FUZZ_ARGS=…   more libFuzzer flags, e.g. "-use_value_profile=1 -len_control=0"
#
# The invocation that works without nightly is `cargo fuzz run -s none`: cargo-fuzz's
# default address sanitizer needs `-Zsanitizer`, but the coverage instrumentation
# (`-Cpasses=sancov-module`, `-Cllvm-args=…`) is stable. Debug assertions and overflow checks
# stay on (cargo-fuzz passes `-Cdebug-assertions`).
#
# Inputs libFuzzer generates go to corpus-live/<target> (not committed); the committed
# seeds in corpus/<target> are read but never written. Findings land in
# artifacts/<target>/ (crash-*, timeout-*, oom-*, slow-unit-*), logs in logs/<target>.log.
set -uo pipefail

cd "$(dirname "$0")"

ALL=(just taskfile package_json xc make cargo pyproject poe_tasks hatch_toml tox nox pom_xml gradle deno_json composer_json turbo_json nx_project mise_toml mise_file_task vscode_tasks workflow compose cmake_presets cmake_lists script gulpfile gruntfile gruntfile_coffee magefile zed_tasks run_configuration)
SECONDS_PER_TARGET=${1:-600}
if [[ $# -gt 0 ]]; then shift; fi
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then TARGETS=("${ALL[@]}"); fi
PARALLEL=${PARALLEL:-1}

command -v cargo-fuzz >/dev/null || {
    echo "cargo-fuzz is not installed: cargo install cargo-fuzz" >&2
    exit 2
}

# Build first, so parallel runs do not fight over the target directory.
mkdir -p logs
for t in "${TARGETS[@]}"; do
    cargo fuzz build -s none "$t" >>logs/build.log 2>&1 || {
        echo "build of $t failed, see fuzz/logs/build.log" >&2
        exit 2
    }
done

fuzz_one() {
    local t=$1
    mkdir -p "corpus-live/$t" "artifacts/$t"
    local stamp
    stamp=$(mktemp)
    local extra=()
    if [[ -f "dicts/$t.dict" ]]; then extra+=("-dict=dicts/$t.dict"); fi
    # shellcheck disable=SC2206 # word splitting of FUZZ_ARGS is the point
    extra+=(${FUZZ_ARGS:-})
    if [[ ${KEEP_GOING:-0} == 1 ]]; then
        extra+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    fi
    local start=$EPOCHSECONDS
    cargo fuzz run -s none "$t" "corpus-live/$t" "corpus/$t" -- \
        -max_len=65536 -timeout=10 -rss_limit_mb=2048 -report_slow_units=2 \
        -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 "${extra[@]}" \
        >"logs/$t.log" 2>&1
    local rc=$?
    local took=$((EPOCHSECONDS - start))
    local execs
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$' |
        awk '{s += $1} END {print s + 0}')
    if [[ $execs == 0 ]]; then
        # Fork mode prints no final stats; take the last status line's count.
        execs=$(grep -o '^#[0-9]*' "logs/$t.log" | tail -1 | tr -d '#')
    fi
    local found
    found=$(find "artifacts/$t" -type f -newer "$stamp" -printf '%f ' 2>/dev/null)
    rm -f "$stamp"
    local corpus
    corpus=$(find "corpus-live/$t" "corpus/$t" -type f | wc -l)
    local slow
    slow=$(tr ' ' '\n' <<<"$found" | grep -c '^slow-unit-')
    found=$(tr ' ' '\n' <<<"$found" | grep -v '^slow-unit-' | tr '\n' ' ' | sed 's/ *$//')
    local verdict="nothing found"
    if [[ -n $found ]]; then
        verdict="FOUND: $found"
    elif [[ $rc != 0 ]]; then
        verdict="FAILED (exit $rc, see fuzz/logs/$t.log)"
    fi
    if ((slow > 0)); then verdict+=" ($slow slow unit(s) over 2 s in artifacts/$t)"; fi
    printf '%-13s %5ss  %12s execs  %7s/s  corpus %6s  %s\n' "$t" "$took" "${execs:-?}" \
        "$(( ${execs:-0} / (took > 0 ? took : 1) ))" "$corpus" "$verdict"
    [[ -z $found && $rc == 0 ]]
}

status=0
running=0
for t in "${TARGETS[@]}"; do
    if ((running >= PARALLEL)); then
        wait -n || status=1
        running=$((running - 1))
    fi
    fuzz_one "$t" &
    running=$((running + 1))
done
while ((running > 0)); do
    wait -n || status=1
    running=$((running - 1))
done
exit $status
