#!/usr/bin/env bash
# Call f8 (swizzled decode tiles): every GPU test; ncu L2 sectors of the mma decode kernel; torch SDPA
# decode, kwb_gpu_bench decode and decode-fit, torch again (standard shapes and 4k-128k).
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
export OUT=$r
cd "$here"
. ./gpu_env.sh
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
m=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_requests_srcunit_tex_op_read.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
p='{"batch":1,"heads":32,"kv_heads":8,"head_dim":128,"context":32768,"length_spread":0,"page_size":16,"splits":32,"stages":2,"kv_dtype":"bf16","impl":"mma","pdl":1}'
timeout 100 "$ncu" --clock-control none --metrics $m --kernel-name regex:decode_mma --launch-skip 10 --launch-count 1 --csv \
    ./bin/kwb_gpu_bench --reps 2 decode-one "$p" > "$r/ncu-mma.csv" 2> "$r/ncu-mma.log"
KWB_STAGE_TIMEOUT=200 bash run-all.sh env tests torch-attention torch-decode-fit > $r/run-all-1.log 2>&1
for f in torch-attention torch-decode-fit; do mv $r/$f.json $r/$f-1.json; mv $r/$f.log $r/$f-1.log; done
KWB_STAGE_TIMEOUT=250 bash run-all.sh decode decode-fit torch-decode-fit torch-attention > $r/run-all-2.log 2>&1; echo "rc=$?" >> $r/run-all-2.log
cp "$here/f8.sh" $r/
cat $r/stages.txt; grep -v "exit 0" $r/gpu-tests.txt; tail -1 $r/run-all-2.log
tar -C /tmp -czf $o/res.tgz res
cp $r/bench-decode-fit.log $r/bench-decode.log $r/gpu-tests.txt $r/ncu-mma.csv $o/
