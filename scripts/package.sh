#!/usr/bin/env bash
# Builds the Debian package shardscope_<version>_amd64.deb in build-deb/ and
# checks it with lintian (no errors allowed; the warnings kept are listed in
# packaging/lintian-overrides-notes.md).
#   scripts/package.sh            build, package, lintian
# Install it with: sudo apt-get install ./build-deb/shardscope_*_amd64.deb
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --packaging
dir=${BUILD_DIR:-build-deb}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDSCOPE_BENCHMARKS=OFF -DSHARDSCOPE_TESTS=OFF \
    -DCMAKE_INSTALL_PREFIX=/usr
cmake --build "$dir" --parallel "$(nproc)" --target shardscope shardscope-probe \
    shardscope_packaging_files
(cd "$dir" && cpack -G DEB)
deb=$(ls "$dir"/shardscope_*_amd64.deb)
echo "Built $deb"
dpkg-deb --info "$deb"
dpkg-deb --contents "$deb"
# lintian exits non-zero on errors; warnings are printed and kept in view.
lintian --fail-on error --no-tag-display-limit "$deb"
