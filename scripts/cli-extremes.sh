#!/usr/bin/env bash
# Runs the sanitizer build's `shardscope report`, `plan` and `export-config` over the
# extreme-value corpus, tests/data/extremes/*.args (one argument per line, '#' lines
# are comments naming the source: the bad-input review's findings, int64 and double
# limits, NaN, inf, 2^63, huge GPU counts, tiny speeds). A refusal (exit 2) or any
# other answer is fine; a sanitizer report (AddressSanitizer, LeakSanitizer, UBSan),
# a crash (exit >= 128) or a run past CLI_EXTREMES_TIMEOUT seconds (default 60) fails.
#   scripts/cli-extremes.sh                  build-asan/ (SANITIZE=1 scripts/test.sh)
#   scripts/cli-extremes.sh BUILD_DIR [FILE.args...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
[ $# -gt 0 ] && shift
exe=$build/app/shardscope
[ -x "$exe" ] || { echo "cli-extremes: no $exe (build it with SANITIZE=1 scripts/test.sh)" >&2; exit 2; }
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/data/extremes/*.args)
limit=${CLI_EXTREMES_TIMEOUT:-60}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# A sanitizer report exits 86, whatever the sanitizer; leaks inside Qt are suppressed
# as in the tests (tests/lsan.supp).
export ASAN_OPTIONS=detect_leaks=1:exitcode=86:abort_on_error=0
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86
export QT_QPA_PLATFORM=offscreen

formats=(deepspeed accelerate torchtitan megatron)
runs=0
refused=0
failed=0
n=0
for f in "${files[@]}"; do
    args=()
    while IFS= read -r line || [ -n "$line" ]; do
        [[ $line == \#* ]] && continue
        args+=("$line")
    done <"$f"
    format=${formats[$((n % ${#formats[@]}))]}
    n=$((n + 1))
    for sub in report plan export-config; do
        extra=()
        case $sub in
        plan) extra=(--top 1 --max-candidates 20000) ;;
        export-config) extra=(--format "$format" --out "$scratch/launch.out") ;;
        esac
        status=0
        timeout -k 5 "$limit" "$exe" "$sub" "${args[@]}" "${extra[@]}" \
            >"$scratch/out" 2>"$scratch/err" || status=$?
        runs=$((runs + 1))
        [ "$status" -eq 2 ] && refused=$((refused + 1))
        why=
        if grep -qE 'runtime error:|ERROR: (AddressSanitizer|LeakSanitizer)|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer' "$scratch/err"; then
            why="sanitizer report"
        elif [ "$status" -eq 86 ]; then
            why="sanitizer exit"
        elif [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
            why="no answer within $limit s"
        elif [ "$status" -ge 128 ]; then
            why="crash (exit $status)"
        fi
        if [ -n "$why" ]; then
            failed=$((failed + 1))
            echo "FAIL $f: shardscope $sub: $why"
            head -c 4000 "$scratch/err"
            echo
        fi
    done
done
echo "cli-extremes: ${#files[@]} argument lists, $runs runs, $refused refused (exit 2), $failed failed"
[ "$failed" -eq 0 ]
