#!/usr/bin/env bash
# Call f6: where the decode kernel's extra L2 sectors come from (ncu): LDGSTS vs LD traffic for
# cp.async / bulk / simt, and the source-counter rules for the cp.async kernel.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
cd "$here/run"
. ./gpu_env.sh
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
m=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_requests_srcunit_tex_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__m_xbar2l1tex_read_sectors.sum,lts__t_sectors_srcunit_tex_op_write.sum
for v in 'cp.async mma 16 0' 'bulk mma 16 0' 'cp.async simt 16 0' 'cp.async mma 64 0' 'cp.async mma 16 1'; do
  set -- $v
  p='{"batch":1,"heads":32,"kv_heads":8,"head_dim":128,"context":32768,"length_spread":0,"page_size":'$3',"splits":32,"stages":2,"kv_dtype":"bf16","impl":"'$2'","pdl":1,"kv_copy":"'$1'","early":'$4'}'
  timeout 100 "$ncu" --clock-control none --metrics $m --kernel-name regex:decode_ --launch-skip 10 --launch-count 1 --csv \
    ./bin/kwb_gpu_bench --reps 2 decode-one "$p" > "$r/ncu-$1-$2-$3-$4.csv" 2> "$r/ncu-$1-$2-$3-$4.log"
done
p='{"batch":1,"heads":32,"kv_heads":8,"head_dim":128,"context":32768,"length_spread":0,"page_size":16,"splits":32,"stages":2,"kv_dtype":"bf16","impl":"mma","pdl":1}'
timeout 150 "$ncu" --clock-control none --section SourceCounters --section MemoryWorkloadAnalysis_Tables --kernel-name regex:decode_mma \
  --launch-skip 10 --launch-count 1 --print-details all --page details ./bin/kwb_gpu_bench --reps 2 decode-one "$p" > $r/ncu-source.txt 2> $r/ncu-source.log
cp "$here/f6.sh" $r/
tar -C /tmp -czf $o/res.tgz res
