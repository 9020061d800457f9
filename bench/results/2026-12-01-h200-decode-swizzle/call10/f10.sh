#!/usr/bin/env bash
# Call f10 (the merged head): every GPU test; torch SDPA decode, kwb_gpu_bench decode, torch again.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
export OUT=$r
cd "$here"
KWB_STAGE_TIMEOUT=200 bash run-all.sh env tests torch-attention > $r/run-all-1.log 2>&1
mv $r/torch-attention.json $r/torch-attention-1.json; mv $r/torch-attention.log $r/torch-attention-1.log
KWB_STAGE_TIMEOUT=250 bash run-all.sh decode torch-attention > $r/run-all-2.log 2>&1; echo "rc=$?" >> $r/run-all-2.log
cp "$here/f10.sh" $r/
tar -C /tmp -czf $o/res.tgz res
cat $r/stages.txt; grep -v "exit 0" $r/gpu-tests.txt; tail -1 $r/run-all-2.log
