#!/bin/bash
# usage: run.sh BIN NAME (BIN: a kwb_bench_live_plot build; NAME: before or after)
cd /work/wt/liveperf
D=bench/results/2026-12-01-cpu-live-plot-decimated
mkdir -p $D
( while true; do echo "$(date -u +%T) $(cat /proc/loadavg)"; sleep 5; done ) > $D/load-$2.txt &
LP=$!
QT_QPA_PLATFORM=offscreen $1 --rates 100000,400000 --repeats 2 --seconds 6 --window 10 > $D/$2.json 2> $D/$2.err
echo rc=$?
kill $LP
