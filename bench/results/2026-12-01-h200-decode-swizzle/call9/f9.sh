#!/usr/bin/env bash
# Call f9 (swizzled tiles in both decode kernels): every GPU test; ncu L2 sectors of the simt decode
# kernel; torch SDPA, kwb_gpu_bench decode, torch again; tiny_llm graph off/on at 3.4 and 6.3 GB with
# this plugin and main's (base.so, 4ac5c6e); the copy ceiling.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r/studies
export OUT=$r
cd "$here"
. ./gpu_env.sh
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
m=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_requests_srcunit_tex_op_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
for kv in bf16 fp8; do
  p='{"batch":1,"heads":32,"kv_heads":8,"head_dim":128,"context":32768,"length_spread":0,"page_size":16,"splits":32,"stages":2,"kv_dtype":"'$kv'","impl":"simt","pdl":1}'
  timeout 100 "$ncu" --clock-control none --metrics $m --kernel-name regex:decode_kernel --launch-skip 10 --launch-count 1 --csv \
    ./bin/kwb_gpu_bench --reps 2 decode-one "$p" > "$r/ncu-simt-$kv.csv" 2> "$r/ncu-simt-$kv.log"
done
KWB_STAGE_TIMEOUT=200 bash run-all.sh env tests torch-attention > $r/run-all-1.log 2>&1
mv $r/torch-attention.json $r/torch-attention-1.json; mv $r/torch-attention.log $r/torch-attention-1.log
KWB_STAGE_TIMEOUT=250 bash run-all.sh decode torch-attention > $r/run-all-2.log 2>&1; echo "rc=$?" >> $r/run-all-2.log
new=$here/lib/libkwb_gpu_backend.so; base=$here/lib/base.so
kwb=$here/bin/kwb
T() { echo "$1: $(( $(date +%s) - t0 )) s, rc $2" >> "$r/stages.txt"; }
t0=$(date +%s); timeout 40 "$kwb" calibrate --json > "$r/calibrate.json" 2> "$r/calibrate.log"; T calibrate $?
big=(--param layers=8 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
huge=(--param layers=16 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
study() { # name plugin vary runs extra...
  local name=$1 plugin=$2 vary=$3 runs=$4; shift 4
  t0=$(date +%s)
  "$kwb" new --workload tiny_llm --backend cuda --vary "$vary" --metric itl_p50_ms --guard ttft_ms --guard tok_s \
    --runs "$runs" --min-rep-ms 0 "$@" --out "$r/studies/$name.json" --force > "$r/studies/$name.new.txt" 2>&1 &&
  KWB_GPU_BACKEND=$plugin timeout 90 "$kwb" run "$r/studies/$name.json" --no-cupti > "$r/studies/$name.run.txt" 2>&1
  T "study $name" $?
}
study new-graph-3.4gb "$new" cuda_graph=off,on 10 "${big[@]}"
study base-graph-3.4gb "$base" cuda_graph=off,on 10 "${big[@]}"
study new-graph-6.3gb "$new" cuda_graph=off,on 10 "${huge[@]}"
study base-graph-6.3gb "$base" cuda_graph=off,on 10 "${huge[@]}"
python3 "$here/summarise_tiny_llm.py" "$r"/studies/*.json > "$r/tiny-summary.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv >> $r/env.txt 2>&1
cp "$here/f9.sh" $r/
for f in $r/studies/*.json; do gzip -k "$f"; done
tar -C /tmp -czf $o/res.tgz res
cp $r/bench-decode.log $r/gpu-tests.txt $r/tiny-summary.txt $r/calibrate.json $o/
cat $r/stages.txt; grep -v "exit 0" $r/gpu-tests.txt; tail -1 $r/run-all-2.log
grep -h 'itl_p50_ms' $r/tiny-summary.txt | cut -c1-150
