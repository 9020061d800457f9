#!/usr/bin/env bash
# Call f7: the decode kernel's LDGSTS split (ncu: smem wavefronts and L2 sectors per copy) with and
# without the zero-fill operand, its SASS, and timings of both at 32k and 128k.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
cd "$here"
. ./gpu_env.sh
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
cuobjdump -sass lib/libkwb_gpu_backend.so 2>/dev/null | awk '/Function : .*decode_mma_kernelILi128ELi4ELb0E/{f=1} f&&/LDGSTS/{print} /Function : /&&!/decode_mma_kernelILi128ELi4ELb0E/{f=0}' | head -60 > $r/sass-ldgsts.txt
m=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_requests_srcunit_tex_op_read.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum,sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
for v in 'mma 0' 'mma 1' 'simt 0' 'simt 1'; do
  set -- $v
  p='{"batch":1,"heads":32,"kv_heads":8,"head_dim":128,"context":32768,"length_spread":0,"page_size":16,"splits":32,"stages":2,"kv_dtype":"bf16","impl":"'$1'","pdl":1,"full_copies":'$2'}'
  timeout 100 "$ncu" --clock-control none --metrics $m --kernel-name regex:decode_.*kernel --launch-skip 10 --launch-count 1 --csv \
    ./bin/kwb_gpu_bench --reps 2 decode-one "$p" > "$r/ncu-$1-$2.csv" 2> "$r/ncu-$1-$2.log"
done
for rep in 1 2; do
for ctx in 32768 131072; do
  for fc in 0 1; do
    for e in 0 1; do
    p='{"batch":1,"heads":32,"kv_heads":8,"head_dim":128,"context":'$ctx',"length_spread":0,"page_size":16,"splits":32,"stages":2,"kv_dtype":"bf16","impl":"mma","pdl":1,"full_copies":'$fc',"early":'$e'}'
    ./bin/kwb_gpu_bench decode-one "$p" 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin)['decode_one']; print('ctx $ctx full_copies $fc early $e', round(d['ms_per_launch']['median']*1e3,2), 'us', d['verify']['ok'])" >> $r/timing.txt
    done
  done
done
done
cp "$here/f7.sh" $r/
cat $r/timing.txt; wc -l $r/sass-ldgsts.txt; head -20 $r/sass-ldgsts.txt
tar -C /tmp -czf $o/res.tgz res
