#!/usr/bin/env bash
# Installs what is missing, builds ShardScope and opens the explorer window.
# Extra arguments go to the app, e.g. scripts/run.sh --model llama3-8b --gpus 8.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build --parallel "$(nproc)" --target shardscope
exec build/app/shardscope "$@"
