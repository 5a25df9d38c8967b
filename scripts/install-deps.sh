#!/usr/bin/env bash
# Installs the Debian 12 packages ShardScope needs, only those missing.
#
#   scripts/install-deps.sh              build, tests and the window
#   scripts/install-deps.sh --packaging  also what checks the .deb (lintian)
#   scripts/install-deps.sh --fuzz       also clang and libFuzzer (scripts/fuzz.sh)
#
# Every package is named here: apt runs with --no-install-recommends, so a
# package that is only a Recommends of another (libqt6opengl6-dev of
# qt6-base-dev, qt6-qpa-plugins of libqt6gui6) is listed on its own. CI proves
# the list complete in a brand-new minimal Debian 12 root (.ci/run).
set -euo pipefail
packages=(
    # compiler, build tools; dpkg-dev and file let cpack -G DEB read library dependencies
    build-essential cmake ninja-build pkg-config dpkg-dev file
    # Qt 6 Widgets, Charts (which needs Qt6OpenGL's CMake files), Svg, Test; QCustomPlot
    qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev libqcustomplot-dev libgl-dev
    # the launch-config writers and their tests: Accelerate YAML (yaml-cpp 0.7) and
    # torchtitan TOML (toml++ 3.3, a shared library in Debian: libtomlplusplus3)
    libyaml-cpp-dev libtomlplusplus-dev
    # the window's platform plugins (xcb, offscreen) and fonts for charts and screenshots
    qt6-qpa-plugins fonts-dejavu-core
    # benchmarks; a virtual X server for running the window without a display
    libbenchmark-dev xvfb xauth
)
case "${1:-}" in
"") ;;
--packaging) packages+=(lintian) ;;
--fuzz) packages+=(clang libclang-rt-14-dev) ;;
*)
    echo "install-deps.sh: unknown option '$1' (--packaging or --fuzz)" >&2
    exit 2
    ;;
esac
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "Installing: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
