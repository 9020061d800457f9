#!/usr/bin/env bash
# Call f3: gpu_attention_decode, then kwb_gpu_bench decode-fit (K copies before V copies or
# interleaved) with torch SDPA before and after on the same shapes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
export OUT=$r
cd "$here"
. ./gpu_env.sh
./bin/gpu_attention_decode > $r/gpu_attention_decode.log 2>&1; echo "gpu_attention_decode: exit $?" > $r/gpu-tests.txt
KWB_STAGE_TIMEOUT=200 bash run-all.sh env torch-decode-fit > $r/run-all-1.log 2>&1
mv $r/torch-decode-fit.json $r/torch-decode-fit-1.json; mv $r/torch-decode-fit.log $r/torch-decode-fit-1.log
KWB_STAGE_TIMEOUT=250 bash run-all.sh decode-fit torch-decode-fit > $r/run-all-2.log 2>&1; echo "rc=$?" >> $r/run-all-2.log
cp "$here/f3.sh" $r/
cat $r/stages.txt $r/gpu-tests.txt
tar -C /tmp -czf $o/res.tgz res
cp $r/bench-decode-fit.log $r/torch-decode-fit-1.json $r/torch-decode-fit.json $r/gpu-tests.txt $o/
