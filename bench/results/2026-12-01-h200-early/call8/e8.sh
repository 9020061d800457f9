#!/usr/bin/env bash
# Call e8 (main + the wider batch-1 page sweep of kwb_gpu_bench decode): every GPU test, then torch SDPA
# decode before and after the kwb_gpu_bench decode sweep (batch 1 at pages 16, 64 and 128).
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
export OUT=$r
cd "$here"
KWB_STAGE_TIMEOUT=200 bash run-all.sh env tests torch-attention > $r/run-all-1.log 2>&1; echo "rc=$?" >> $r/run-all-1.log
mv $r/torch-attention.json $r/torch-attention-1.json; mv $r/torch-attention.log $r/torch-attention-1.log
cp $r/gpu-tests.txt $o/
KWB_STAGE_TIMEOUT=200 bash run-all.sh decode torch-attention > $r/run-all-2.log 2>&1; echo "rc=$?" >> $r/run-all-2.log
cp "$here/e8.sh" $r/
cp $r/bench-decode.log $r/torch-attention-1.json $r/torch-attention.json $o/
tar -C /tmp -czf $o/res.tgz res
grep -v "exit 0" $r/gpu-tests.txt; cat $r/stages.txt; tail -n 1 $r/run-all-2.log
grep "ctx 32768 batch 1 " $r/bench-decode.log | sed 's/{"cv_pct[^}]*median":\([0-9.]*\)[^}]*}/\1/' | cut -c1-110
