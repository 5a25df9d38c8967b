#!/usr/bin/env bash
# Device check for shardscope-probe on a machine with an NVIDIA GPU (docs/probe.md).
#
#   probe/device-check.sh [BUILD_DIR]
#
# Configures probe/ on its own (needs CMake, a C++20 compiler, Qt 6 Core and
# Network, and the CUDA toolkit for the calibration step), builds only the
# shardscope-probe target, prints nvidia-smi and the probe's JSON, then
# calibrates a small scenario (1 GiB weights, 1 GiB gradients, 2 GiB optimizer
# states) on GPU ${DEVICE:-0}. The calibration step is bounded to 180 s.
# Without a GPU or driver it stops after the probe's JSON, saying so, exit 0.
# Exit status: 0 all steps ran; 1 a step failed (build, probe, calibration).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build-device-check}
device=${DEVICE:-0}
started=$SECONDS

section() { printf '\n==== %s ====\n' "$*"; }
fail() {
    printf 'device-check: FAILED: %s\n' "$*" >&2
    exit 1
}
# The value of "key":"string" or "key":integer in a one-line JSON document.
json_field() {
    sed -nE -e "s/.*\"$1\":\"([^\"]*)\".*/\1/p" -e "s/.*\"$1\":(-?[0-9]+).*/\1/p" <<<"$2" |
        head -n 1
}

section "configure and build shardscope-probe ($build)"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$here" -B "$build" ${generator[@]+"${generator[@]}"} -DCMAKE_BUILD_TYPE=Release ||
    fail "cmake configure"
cmake --build "$build" --target shardscope-probe --parallel || fail "cmake --build"
probe=$build/shardscope-probe
[[ -x $probe ]] || fail "no executable at $probe"
echo "built $probe in $((SECONDS - started)) s"

section "nvidia-smi"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi || echo "(nvidia-smi exited $?)"
    echo
    # The same figures the probe reports, in MiB, for a side-by-side check.
    nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,memory.reserved,memory.used,memory.free \
        --format=csv 2>/dev/null ||
        nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,memory.used,memory.free \
            --format=csv || true
else
    echo "nvidia-smi not found"
fi

section "shardscope-probe --json"
json=$("$probe" --json)
rc=$?
echo "$json"
echo "(exit $rc)"
code=$(json_field error_code "$json")
if [[ -n $code ]]; then
    case $code in
    nvml_not_found | symbol_missing | no_driver | nvml_init_failed | no_gpus)
        echo
        echo "device-check: no GPU to check here ($code): $(json_field error "$json")"
        echo "device-check: stopped before calibration after $((SECONDS - started)) s"
        exit 0
        ;;
    *) fail "probe reported $code (exit $rc)" ;;
    esac
fi
[[ $rc -eq 0 ]] || fail "probe exited $rc"

section "shardscope-probe --watch 200 --count 3"
"$probe" --watch 200 --count 3 || fail "probe --watch exited $?"

section "calibration on GPU $device: 1 GiB weights, 1 GiB gradients, 2 GiB optimizer states"
scenario=$(mktemp "${TMPDIR:-/tmp}/shardscope-scenario.XXXXXX.json")
trap 'rm -f "$scenario"' EXIT
cat >"$scenario" <<'EOF'
{"rank": 0, "bytes": {"weights": 1073741824, "gradients": 1073741824, "master_weights": 0,
                      "optimizer_states": 2147483648, "activations": 0, "buffers": 0}}
EOF
calibration=$(timeout 180 "$probe" --calibrate "$scenario" --rank 0 --device "$device")
rc=$?
if command -v python3 >/dev/null 2>&1 && [[ -n $calibration ]]; then
    python3 - "$calibration" <<'PY' || echo "$calibration"
import json, sys
doc = json.loads(sys.argv[1])
print(json.dumps(doc, indent=2))
if "components" in doc:
    mib = 1 << 20
    c = doc["context"]
    print(f"\ncontext baseline: {c['baseline_bytes'] / mib:.1f} MiB")
    print(f"{'component':<18}{'predicted MiB':>15}{'measured MiB':>15}{'diff MiB':>12}")
    for row in doc["components"]:
        print(f"{row['name']:<18}{row['predicted_bytes'] / mib:>15.1f}"
              f"{row['measured_bytes'] / mib:>15.1f}{row['difference_bytes'] / mib:>12.1f}")
    print(f"{'total':<18}{doc['predicted_total_bytes'] / mib:>15.1f}"
          f"{doc['measured_total_bytes'] / mib:>15.1f}{doc['difference_bytes'] / mib:>12.1f}")
PY
else
    echo "$calibration"
fi
echo "(exit $rc)"
[[ $rc -eq 124 ]] && fail "calibration took more than 180 s"
[[ $rc -eq 0 ]] || fail "calibration exited $rc ($(json_field error_code "$calibration"))"

echo
echo "device-check: all steps passed in $((SECONDS - started)) s"
