#!/usr/bin/env bash
# Call f5: L2 traffic of our decode kernel (evict_first 0/1) and torch's (cuDNN) at batch 1, 32k,
# under ncu; then gpu_attention_decode and kwb_gpu_bench decode-fit with torch before and after.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
export OUT=$r
cd "$here"
. ./gpu_env.sh
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
cat > $r/t.py <<'PY'
import sys, torch, torch.nn.functional as F
ctx = int(sys.argv[1])
q = torch.randn(1, 32, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(1, 8, ctx, 128, device="cuda", dtype=torch.bfloat16)
v = torch.randn_like(k)
for _ in range(20):
    F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
torch.cuda.synchronize()
PY
m1=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_requests_srcunit_tex_op_read.sum
m2=lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum
for set in m1 m2; do
  met=${!set}
  timeout 100 "$ncu" --clock-control none --metrics $met --launch-skip 30 --launch-count 2 --csv python3 $r/t.py 32768 > $r/ncu-torch-$set.csv 2> $r/ncu-torch-$set.log
  for ev in 0 1; do
    p='{"batch":1,"heads":32,"kv_heads":8,"head_dim":128,"context":32768,"length_spread":0,"page_size":16,"splits":32,"stages":2,"kv_dtype":"bf16","impl":"mma","pdl":1,"evict_first":'$ev'}'
    timeout 100 "$ncu" --clock-control none --metrics $met --kernel-name regex:decode_mma --launch-skip 10 --launch-count 2 --csv \
      ./bin/kwb_gpu_bench --reps 2 decode-one "$p" > $r/ncu-ours-ev$ev-$set.csv 2> $r/ncu-ours-ev$ev-$set.log
  done
done
./bin/gpu_attention_decode > $r/gpu_attention_decode.log 2>&1; echo "gpu_attention_decode: exit $?" > $r/gpu-tests.txt
KWB_STAGE_TIMEOUT=200 bash run-all.sh env torch-decode-fit > $r/run-all-1.log 2>&1
mv $r/torch-decode-fit.json $r/torch-decode-fit-1.json; mv $r/torch-decode-fit.log $r/torch-decode-fit-1.log
KWB_STAGE_TIMEOUT=250 bash run-all.sh decode-fit torch-decode-fit > $r/run-all-2.log 2>&1; echo "rc=$?" >> $r/run-all-2.log
cp "$here/f5.sh" $r/
cat $r/stages.txt $r/gpu-tests.txt
tar -C /tmp -czf $o/res.tgz res
cp $r/bench-decode-fit.log $r/torch-decode-fit-1.json $r/torch-decode-fit.json $o/
