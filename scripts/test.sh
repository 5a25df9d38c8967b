#!/usr/bin/env bash
# Builds ShardScope and runs every test (offscreen, no display or GPU needed).
#   scripts/test.sh              normal build in build/
#   SANITIZE=1 scripts/test.sh   AddressSanitizer + UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ "${SANITIZE:-0}" = 1 ]; then
    dir=${BUILD_DIR:-build-asan}
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSHARDSCOPE_SANITIZE=ON \
        -DSHARDSCOPE_BENCHMARKS=OFF
else
    dir=${BUILD_DIR:-build}
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$dir" --parallel "$(nproc)"
QT_QPA_PLATFORM=offscreen ctest --test-dir "$dir" --output-on-failure --parallel "$(nproc)"
