#!/usr/bin/env bash
# Run inside a fresh Debian 12 root: installs the .deb in the current folder
# with apt (its Depends only, no Recommends) and runs the installed binaries
# with no display, as a user of the package would.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends ./shardscope_*_amd64.deb >/dev/null
unset DISPLAY WAYLAND_DISPLAY QT_QPA_PLATFORM
set -x
command -v shardscope shardscope-probe
shardscope --version
shardscope --help >/dev/null
shardscope report --model llama3-70b --gpus 64 --strategy zero3 --json >report.json
grep -q '"peak_bytes"' report.json
shardscope export --model llama3-70b --gpus 64 --strategy zero3 --out chart.png
[ "$(head -c 8 chart.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
# The window with no display: one line, exit 2, never an abort.
status=0
shardscope 2>window.err || status=$?
[ "$status" = 2 ] && [ "$(wc -l <window.err)" = 1 ]
cat window.err
# The probe on a machine without the NVIDIA driver says so in JSON; no crash.
status=0
shardscope-probe --json >probe.json || status=$?
[ "$status" -lt 128 ]
head -c 300 probe.json
echo
set +x
dpkg -L shardscope
echo "installed package: OK"
