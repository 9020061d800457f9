#!/bin/bash
# usage: callgrind.sh BIN NAME RATE FRAMES
# Instructions of exactly FRAMES frames (drain, replot, paint) after one full 10 s window, in
# simulated time: repeatable under any load. Prints NAME RATE FRAMES and the total; divide by FRAMES.
set -u
D=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
QT_QPA_PLATFORM=offscreen valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*frameOnce*' \
  --callgrind-out-file="$out/cg.out" "$1" --rates "$3" --repeats 1 --frames "$4" --window 10 > "$out/cg.json" 2> "$out/cg.err"
echo "$2 $3 frames=$4 $(grep -E '^summary:' "$out/cg.out")"
