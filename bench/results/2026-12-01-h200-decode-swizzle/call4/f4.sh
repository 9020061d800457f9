#!/usr/bin/env bash
# Call f4: what torch's SDPA decode runs at batch 1 (kernels, grids, DRAM throughput) beside ours, under ncu.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
cd "$here/run"
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
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,lts__t_sector_hit_rate.pct,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed
for ctx in 32768 131072; do
  timeout 120 "$ncu" --clock-control none --metrics $m --launch-skip 30 --launch-count 6 --csv python3 $r/t.py $ctx > $r/ncu-torch-$ctx.csv 2> $r/ncu-torch-$ctx.log
  p='{"batch":1,"heads":32,"kv_heads":8,"head_dim":128,"context":'$ctx',"length_spread":0,"page_size":16,"splits":32,"stages":2,"kv_dtype":"bf16","impl":"mma","pdl":1}'
  timeout 120 "$ncu" --clock-control none --metrics $m --launch-skip 20 --launch-count 4 --csv \
    ./bin/kwb_gpu_bench --reps 2 decode-one "$p" > $r/ncu-ours-$ctx.csv 2> $r/ncu-ours-$ctx.log
done
cp "$here/f4.sh" $r/
tar -C /tmp -czf $o/res.tgz res
cp $r/ncu-*.csv $o/
