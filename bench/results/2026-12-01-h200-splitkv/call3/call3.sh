# call 3 (splitkv, final): all GPU tests, torch SDPA, the decode sweep, torch SDPA again, in one call
set -u
here=$PWD; o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
export OUT=$r
KWB_STAGE_TIMEOUT=240 bash run-all.sh env tests torch-attention > $r/run-all-1.log 2>&1; echo "rc=$?" >> $r/run-all-1.log
mv $r/torch-attention.json $r/torch-attention-1.json; mv $r/torch-attention.log $r/torch-attention-1.log
KWB_STAGE_TIMEOUT=240 bash run-all.sh decode torch-attention > $r/run-all-2.log 2>&1; echo "rc=$?" >> $r/run-all-2.log
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv >> $r/env.txt 2>&1
cp call3.sh summ.py $r/
tar -C /tmp -czf $o/res.tgz res
cat $r/gpu-tests.txt; cat $r/stages.txt; tail -n 1 $r/run-all-1.log $r/run-all-2.log
python3 summ.py $r
