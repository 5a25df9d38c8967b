#!/usr/bin/env bash
# Fuzzes every parser of outside input with libFuzzer (clang, AddressSanitizer and
# UndefinedBehaviorSanitizer): Hugging Face config.json, scenario files, lessons,
# the probe's reading document, Prometheus answers, calibration plans, the command
# line, launch configs (--launch-config), measurement files (snapshot pickles,
# profiler timelines, nvidia-smi logs) and the pickle reader alone; the launch
# configs (export-config) and bounded plans of accepted scenario files; export's
# argument handling (not its drawing); and pasted text read for PyTorch's
# out-of-memory message (explain-oom). Builds in build-fuzz/, runs each target for
# FUZZ_SECONDS (default 60) from its seed corpus in fuzz/corpus/<target>/ (left
# unchanged: new inputs go to a scratch folder), and fails on any crash, sanitizer
# report, leak, timeout or out-of-memory. Prints the executions of each target.
#   scripts/fuzz.sh                  every target, 60 s each
#   FUZZ_SECONDS=10 scripts/fuzz.sh cli scenario
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --fuzz
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(hfconfig scenario lesson probe_document prometheus calibration cli export_config plan export oom measurement pickle launch_config)
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSHARDSCOPE_FUZZ=ON -DSHARDSCOPE_TESTS=OFF -DSHARDSCOPE_BENCHMARKS=OFF >/dev/null
cmake --build build-fuzz --parallel "$(nproc)" --target fuzzers
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
summary=()
failed=0
for t in "${targets[@]}"; do
    mkdir -p "$scratch/$t"
    log="$scratch/$t.log"
    echo "=== fuzz_$t for $seconds s"
    status=0
    # Leaks count as findings; Qt's own one-time allocations are suppressed as in tests/.
    ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
        QT_QPA_PLATFORM=offscreen \
        "build-fuzz/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$scratch/$t-" \
        "$scratch/$t" "fuzz/corpus/$t" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [ "$status" -ne 0 ]; then
        failed=1
        echo "fuzz_$t FOUND A FAILURE (exit $status):"
        grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -20
        for a in "$scratch/$t"-*; do
            [ -e "$a" ] && echo "input (base64): $(head -c 2000 "$a" | base64 -w0)"
        done
    fi
    summary+=("$(printf '%-16s %10s executions  %s' "fuzz_$t" "${runs:-?}" \
        "$([ "$status" -eq 0 ] && echo ok || echo FAILED)")")
done
echo
echo "=== fuzzing, $seconds s per target"
printf '%s\n' "${summary[@]}"
exit "$failed"
