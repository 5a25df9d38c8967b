#!/usr/bin/env python3
"""Writes the measurement fixtures in tests/io/data/measurement/ (docs/measurements.md).

Python standard library only. Each file follows its format's documented schema:

- snapshot.pickle, snapshot-protocol2.pickle, snapshot-no-trace.pickle: what
  torch.cuda.memory._dump_snapshot() writes, pickle.dump of the dict that
  torch.cuda.memory._snapshot() documents (torch/cuda/memory.py: segments of
  total_size and blocks of size and state, device_traces of TraceEntry dicts,
  allocator_settings), at Python's default protocol and at protocol 2 (the one
  torch's C++ Pickler writes, torch/csrc/jit/serialization/pickler.cpp);
- profiler-timeline.json: what torch.profiler's export_memory_timeline("x.json")
  writes, json.dump([times, sizes]) with a row per time of a leading 0 and the bytes
  of PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT,
  AUTOGRAD_DETAIL and unknown (torch/profiler/_memory_profiler.py);
- nvidia-smi.csv and nvidia-smi-noheader.csv: `nvidia-smi
  --query-gpu=timestamp,index,memory.used,memory.total --format=csv` and
  `--format=csv,noheader,nounits`;
- hostile-global.pickle and hostile-stack-global.pickle: pickles that would run
  `touch /tmp/shardscope-hostile-pickle-ran` if unpickled by Python (GLOBAL os.system
  + REDUCE at protocol 2; STACK_GLOBAL + REDUCE inside a snapshot-shaped dict at
  protocol 4). This script only writes their bytes; nothing here unpickles them.

The byte totals the tests assert are computed by hand below and checked by this script.
Run from the repository root: python3 scripts/make-measurement-fixtures.py
"""

import json
import os
import pickle
import struct

OUT = os.path.join("tests", "io", "data", "measurement")
MIB = 1024 * 1024
HOSTILE_COMMAND = "touch /tmp/shardscope-hostile-pickle-ran"

# ---- the snapshot --------------------------------------------------------------------

FRAMES = [
    {"filename": "train.py", "line": 42, "name": "forward"},
    {"filename": "torch/nn/modules/linear.py", "line": 125, "name": "forward"},
]

# Segment A (large pool), 20 MiB, and segment B (small pool), 2 MiB, both on device 0.
SEGMENT_A = [  # (size, state)
    (8 * MIB, "active_allocated"),
    (4 * MIB + 512, "active_allocated"),
    (2 * MIB, "active_pending_free"),  # the C++ name; the docstring says active_awaiting_free
    (20 * MIB - 8 * MIB - (4 * MIB + 512) - 2 * MIB, "inactive"),  # 6_290_944
]
SEGMENT_B = [
    (512, "active_allocated"),
    (1536, "active_allocated"),
    (2 * MIB - 2048, "inactive"),  # 2_095_104
]

# Hand sums the tests assert (tests/io/test_measurement.cpp).
RESERVED = 20 * MIB + 2 * MIB  # 23_068_672
ALLOCATED = 8 * MIB + (4 * MIB + 512) + 512 + 1536  # 12_585_472
# The trace below starts from nothing: the largest allocated moment is after the
# 6_290_944-byte temporary is allocated (8 MiB + 4 MiB + 512 + 6_290_944).
PEAK_ALLOCATED = 8 * MIB + (4 * MIB + 512) + 6_290_944  # 18_874_368
# ... and the largest reserved moment while the 4 MiB segment is held beside A.
PEAK_RESERVED = 20 * MIB + 4 * MIB  # 25_165_824

assert RESERVED == 23_068_672 and ALLOCATED == 12_585_472
assert PEAK_ALLOCATED == 18_874_368 and PEAK_RESERVED == 25_165_824


def blocks(address, spec):
    out = []
    for size, state in spec:
        out.append({
            "address": address,
            "size": size,
            "requested_size": size if state != "inactive" else 0,
            "state": state,
            "frames": FRAMES if state != "inactive" else [],
        })
        address += size
    return out


def segment(address, spec, segment_type):
    total = sum(size for size, _ in spec)
    return {
        "device": 0,
        "address": address,
        "total_size": total,
        "allocated_size": sum(s for s, st in spec if st == "active_allocated"),
        "active_size": sum(s for s, st in spec if st != "inactive"),
        "requested_size": sum(s for s, st in spec if st == "active_allocated"),
        "stream": 0,
        "segment_type": segment_type,
        "segment_pool_id": (0, 0),
        "is_expandable": False,
        "frames": FRAMES,
        "blocks": blocks(address, spec),
    }


A, B, T = 0x7F3A_0000_0000, 0x7F3A_4000_0000, 0x7F3A_8000_0000
TRACE = [  # (action, addr, size): chronological, as the allocator records them
    ("segment_alloc", A, 20 * MIB),
    ("alloc", A, 8 * MIB),
    ("alloc", A + 8 * MIB, 4 * MIB + 512),
    ("alloc", A + 12 * MIB + 512, 6_290_944),
    ("free_requested", A + 12 * MIB + 512, 6_290_944),
    ("free_completed", A + 12 * MIB + 512, 6_290_944),
    ("segment_alloc", T, 4 * MIB),
    ("segment_free", T, 4 * MIB),
    ("segment_alloc", B, 2 * MIB),
    ("alloc", B, 512),
    ("alloc", B + 512, 1536),
    ("alloc", A + 12 * MIB + 512, 2 * MIB),
    ("free_requested", A + 12 * MIB + 512, 2 * MIB),
    ("snapshot", 0, 0),
]


def trace_entries():
    out = []
    for i, (action, addr, size) in enumerate(TRACE):
        out.append({
            "action": action,
            "addr": addr,
            "size": size,
            "stream": 0,
            "time_us": 1_764_700_000_000_000 + 1000 * i,
            "frames": FRAMES,
        })
    return out


def snapshot(with_trace=True):
    return {
        "segments": [segment(A, SEGMENT_A, "large"), segment(B, SEGMENT_B, "small")],
        "device_traces": [trace_entries() if with_trace else []],
        "allocator_settings": {
            "PYTORCH_CUDA_ALLOC_CONF": "",
            "max_split_size": -1,
            "garbage_collection_threshold": 0.0,
            "expandable_segments": False,
            "roundup_power2_divisions": {"1": 0, "2": 0},
        },
    }


# ---- the profiler memory timeline ----------------------------------------------------

# Rows: a leading 0, then PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION,
# GRADIENT, AUTOGRAD_DETAIL, unknown. Floats, as _coalesce_timeline accumulates them.
TIMELINE_TIMES = [1_000, 2_000, 3_000, 4_000, 5_000]
TIMELINE_SIZES = [
    [0.0, 1_000_000.0, 0.0, 4096.0, 0.0, 0.0, 0.0, 0.0, 512.0],
    [0.0, 1_000_000.0, 0.0, 4096.0, 65536.0, 3_000_000.0, 0.0, 0.0, 512.0],
    [0.0, 1_000_000.0, 0.0, 4096.0, 131072.0, 6_000_000.0, 1_000_000.0, 20480.0, 512.0],
    [0.0, 1_000_000.0, 2_000_000.0, 4096.0, 0.0, 0.0, 1_000_000.0, 0.0, 512.0],
    [0.0, 1_000_000.0, 2_000_000.0, 0.0, 0.0, 0.0, 0.0, 0.0, 512.0],
]
TIMELINE_PEAK = 1_000_000 + 4096 + 131072 + 6_000_000 + 1_000_000 + 20480 + 512  # row 2
TIMELINE_LAST = 1_000_000 + 2_000_000 + 512
assert TIMELINE_PEAK == 8_156_160 and TIMELINE_LAST == 3_000_512
assert max(sum(r) for r in TIMELINE_SIZES) == TIMELINE_PEAK

# ---- nvidia-smi ----------------------------------------------------------------------

SMI_ROWS = [  # (timestamp, index, used MiB or None for [N/A], total MiB)
    ("2026/12/03 10:00:00.000", 0, 1024, 81559),
    ("2026/12/03 10:00:00.000", 1, 2048, 81559),
    ("2026/12/03 10:00:01.000", 0, 61440, 81559),
    ("2026/12/03 10:00:01.000", 1, None, 81559),
    ("2026/12/03 10:00:02.000", 0, 60000, 81559),
    ("2026/12/03 10:00:02.000", 1, 63488, 81559),
]
# GPU 0 peaks at 61440 MiB = 64_424_509_440 bytes, GPU 1 at 63488 MiB = 66_571_993_088.
assert 61440 * MIB == 64_424_509_440 and 63488 * MIB == 66_571_993_088


def smi_csv(header, units):
    lines = []
    if header:
        lines.append("timestamp, index, memory.used [MiB], memory.total [MiB]")
    unit = " MiB" if units else ""
    for ts, index, used, total in SMI_ROWS:
        used_text = "[N/A]" if used is None else f"{used}{unit}"
        lines.append(f"{ts}, {index}, {used_text}, {total}{unit}")
    return "\n".join(lines) + "\n"


# ---- hostile pickles -----------------------------------------------------------------


def hostile_global():
    """PROTO 2, GLOBAL 'os system', the command, TUPLE1, REDUCE, STOP: os.system(cmd)."""
    cmd = HOSTILE_COMMAND.encode()
    return (b"\x80\x02" + b"cos\nsystem\n" + b"X" + struct.pack("<I", len(cmd)) + cmd +
            b"\x85" + b"R" + b".")


class _Hostile:
    """Pickles as os.system(cmd); pickle.dumps only writes that, it runs nothing."""

    def __reduce__(self):
        return (os.system, (HOSTILE_COMMAND,))


def hostile_stack_global():
    return pickle.dumps({"segments": [_Hostile()], "device_traces": []}, protocol=4)


def write(name, data):
    path = os.path.join(OUT, name)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)
    print(f"wrote {path} ({len(data)} bytes)")


def main():
    os.makedirs(OUT, exist_ok=True)
    write("snapshot.pickle", pickle.dumps(snapshot(), protocol=4))
    write("snapshot-protocol2.pickle", pickle.dumps(snapshot(), protocol=2))
    write("snapshot-no-trace.pickle", pickle.dumps(snapshot(with_trace=False), protocol=4))
    write("profiler-timeline.json", json.dumps([TIMELINE_TIMES, TIMELINE_SIZES]))
    write("nvidia-smi.csv", smi_csv(header=True, units=True))
    write("nvidia-smi-noheader.csv", smi_csv(header=False, units=False))
    write("hostile-global.pickle", hostile_global())
    write("hostile-stack-global.pickle", hostile_stack_global())


if __name__ == "__main__":
    main()
