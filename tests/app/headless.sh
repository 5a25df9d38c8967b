#!/usr/bin/env bash
# The command line with no display at all (no DISPLAY, WAYLAND_DISPLAY or
# QT_QPA_PLATFORM): --help, --version and every subcommand work; the window
# says in one line how to run it and exits 2; --screenshot draws offscreen.
#   headless.sh PATH/TO/shardscope WORKDIR
set -uo pipefail
bin=$1
work=$2
mkdir -p "$work"
unset DISPLAY WAYLAND_DISPLAY QT_QPA_PLATFORM
failures=0
passes=0
check() { # check NAME CONDITION...
    local name=$1
    shift
    if "$@"; then echo "PASS $name"; passes=$((passes + 1)); else echo "FAIL $name"; failures=$((failures + 1)); fi
}
expect_status() { # expect_status WANT COMMAND...
    local want=$1 got=0
    shift
    "$@" >"$work/out" 2>"$work/err" || got=$?
    [ "$got" = "$want" ] || { echo "  $* exited $got, want $want"; cat "$work/err"; return 1; }
}

check "--help" expect_status 0 "$bin" --help
check "--help lists subcommands" grep -q "export-config" "$work/out"
check "--version" expect_status 0 "$bin" --version
check "--version names the program" grep -qx "ShardScope [0-9.]*" "$work/out"
for sub in report export export-config measured; do
    check "$sub --help" expect_status 0 "$bin" "$sub" --help
done
check "report" expect_status 0 "$bin" report --model llama3-8b --gpus 8 --strategy zero3 --json
check "the window: exit 2" expect_status 2 "$bin" --model llama3-8b
check "the window: one line" test "$(wc -l <"$work/err")" = 1
check "the window: names xvfb-run" grep -q "xvfb-run" "$work/err"
check "the window: names offscreen" grep -q "QT_QPA_PLATFORM=offscreen" "$work/err"
rm -f "$work/shot.png"
check "--screenshot without a display" expect_status 0 "$bin" --screenshot "$work/shot.png" --size 1280x720
check "--screenshot wrote a PNG" test -s "$work/shot.png"
# A screenshot that cannot be written says why; an unknown image suffix is refused at once.
check "--screenshot onto a folder" expect_status 1 "$bin" --screenshot "$work" --size 1280x720
check "--screenshot onto a folder says why" grep -q "cannot write .*: not a regular file" "$work/err"
check "--screenshot of an unknown format" expect_status 2 "$bin" --screenshot "$work/x.weird"
check "--screenshot of an unknown format says so" grep -q "no image format 'weird'" "$work/err"
# The window's --size takes the export command's bounds.
check "--size below the export's least" expect_status 2 "$bin" --size 320x240 --screenshot "$work/x.png"
check "--size names its bounds" grep -q "from 480x320 to 8192x8192 (got '320x240')" "$work/err"
# A mistyped subcommand is no file: the refusal names the subcommands; a missing file
# does not.
check "a mistyped subcommand" expect_status 2 "$bin" reprot --screenshot "$work/x.png"
check "a mistyped subcommand names them" grep -q "subcommands: report, plan" "$work/err"
check "a missing file" expect_status 2 "$bin" "$work/missing.json" --screenshot "$work/x.png"
check "a missing file says only so" test "$(wc -l <"$work/err")" = 1
# Endless and non-regular inputs: every entry point refuses them at once, in one line.
rm -f "$work/fifo"
mkfifo "$work/fifo"
refuses() { # refuses COMMAND...: exit 2 within 5 s, one line saying why
    local got=0
    timeout 5 "$@" >"$work/out" 2>"$work/err" || got=$?
    [ "$got" = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -q "not a regular file" "$work/err" ||
        { echo "  exited $got"; cat "$work/err"; return 1; }
}
for input in /dev/zero "$work/fifo"; do
    check "report --hf-config $input" refuses "$bin" report --hf-config "$input"
    check "report --scenario $input" refuses "$bin" report --scenario "$input"
    check "export-config --scenario $input" refuses "$bin" export-config --format deepspeed \
        --scenario "$input"
    check "export --scenario $input" refuses "$bin" export --scenario "$input" --out "$work/x.png"
    check "the window opening $input" refuses "$bin" "$input" --screenshot "$work/x.png"
done
# A file name that is not valid UTF-8 opens from the command line.
badname=$(printf '%s/bad\xff.shardscope.json' "$work")
printf '{"schema": "shardscope-scenario", "version": 1, "model": "llama3-8b", "gpus": 16}' >"$badname"
check "report --scenario with a non-UTF-8 name" expect_status 0 "$bin" report --scenario "$badname" --json
check "  ... read the file's 16 GPUs" grep -q '"gpus": 16' "$work/out"
# --unit beside a file overrides the unit the file was saved with: the same scenario
# saved in GiB and shown with --unit gb draws exactly what the GB file draws.
scenario='{"schema": "shardscope-scenario", "version": 1, "model": "llama3-8b", "gpus": 16'
printf '%s, "unit": "gib"}' "$scenario" >"$work/in-gib.shardscope.json"
printf '%s, "unit": "gb"}' "$scenario" >"$work/in-gb.shardscope.json"
"$bin" "$work/in-gib.shardscope.json" --unit gb --size 1280x720 --screenshot "$work/a.png" 2>/dev/null
"$bin" "$work/in-gb.shardscope.json" --size 1280x720 --screenshot "$work/b.png" 2>/dev/null
"$bin" "$work/in-gib.shardscope.json" --size 1280x720 --screenshot "$work/c.png" 2>/dev/null
check "--unit gb beside a GiB file draws the GB picture" cmp -s "$work/a.png" "$work/b.png"
check "  ... and without --unit the file's GiB shows" bash -c "! cmp -s '$work/a.png' '$work/c.png'"
echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
