#!/usr/bin/env bash
# Call f2: every GPU test, then batch-1 decode at contexts 4k-128k (kwb_gpu_bench decode-fit: cp.async
# and TMA bulk tiles, pages shuffled and in order) with torch SDPA before and after on the same shapes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
export OUT=$r
cd "$here"
KWB_STAGE_TIMEOUT=200 bash run-all.sh env tests torch-decode-fit > $r/run-all-1.log 2>&1
mv $r/torch-decode-fit.json $r/torch-decode-fit-1.json; mv $r/torch-decode-fit.log $r/torch-decode-fit-1.log
KWB_STAGE_TIMEOUT=250 bash run-all.sh decode-fit torch-decode-fit > $r/run-all-2.log 2>&1; echo "rc=$?" >> $r/run-all-2.log
cp "$here/f2.sh" $r/
cat $r/stages.txt; grep -v "exit 0" $r/gpu-tests.txt; tail -3 $r/gpu_attention_decode.log
tar -C /tmp -czf $o/res.tgz res
cp $r/bench-decode-fit.log $r/torch-decode-fit-1.json $r/torch-decode-fit.json $r/gpu-tests.txt $o/
