#!/bin/bash
# usage: run.sh BIN NAME   (BIN: a kwb_bench_live_plot build; NAME: a label, e.g. before or after)
# The real-time run (frame wall and thread-CPU times, median/p95/p99/max) as in
# ../2026-12-01-cpu-live-plot-decimated, then the fixed-frame run (simulated time, thread CPU per
# frame; load-independent). Writes NAME.json, NAME-frames.json and load-NAME.txt here.
set -u
D=$(cd "$(dirname "$0")" && pwd)
( while true; do echo "$(date -u +%T) $(cat /proc/loadavg)"; sleep 5; done ) > "$D/load-$2.txt" &
LP=$!
QT_QPA_PLATFORM=offscreen "$1" --rates 100000,400000 --repeats 2 --seconds 6 --window 10 > "$D/$2.json" 2> "$D/$2.err"
echo "live rc=$?"
QT_QPA_PLATFORM=offscreen "$1" --rates 100000,400000 --repeats 1 --frames 200 --window 10 > "$D/$2-frames.json" 2>> "$D/$2.err"
echo "frames rc=$?"
kill $LP
