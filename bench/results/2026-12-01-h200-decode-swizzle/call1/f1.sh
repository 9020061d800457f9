#!/usr/bin/env bash
# Call f1: batch-1 decode at contexts 4k-128k (kwb_gpu_bench decode-fit) with torch SDPA before and
# after on the same shapes, then ncu on the 32k launch at rings of 2 and 3 (splits 32).
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
export OUT=$r
cd "$here"
KWB_STAGE_TIMEOUT=200 bash run-all.sh env torch-decode-fit > $r/run-all-1.log 2>&1
mv $r/torch-decode-fit.json $r/torch-decode-fit-1.json; mv $r/torch-decode-fit.log $r/torch-decode-fit-1.log
KWB_STAGE_TIMEOUT=250 bash run-all.sh decode-fit torch-decode-fit > $r/run-all-2.log 2>&1; echo "rc=$?" >> $r/run-all-2.log
. ./gpu_env.sh
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for st in 2 3; do
  for sp in 32 48; do
  p='{"batch":1,"heads":32,"kv_heads":8,"head_dim":128,"context":32768,"length_spread":0,"page_size":16,"splits":'$sp',"stages":'$st',"kv_dtype":"bf16","impl":"mma","pdl":1}'
  timeout 120 "$ncu" --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --kernel-name regex:decode_mma --launch-skip 5 --launch-count 1 --csv --page details \
    ./bin/kwb_gpu_bench --reps 2 decode-one "$p" > $r/ncu-s$st-sp$sp.csv 2> $r/ncu-s$st-sp$sp.log
  done
done
cp "$here/f1.sh" $r/
cat $r/stages.txt
tar -C /tmp -czf $o/res.tgz res
cp $r/bench-decode-fit.log $r/torch-decode-fit-1.json $r/torch-decode-fit.json $o/
grep -h "Duration\|DRAM Throughput\|Achieved Occupancy\|Theoretical Occupancy\|Block Limit Shared\|Shared Memory Configuration" $r/ncu-s*.csv | cut -c1-200 | head -40
