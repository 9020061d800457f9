# call 1 (splitkv): tests of the new decode, then torch / new sweep / main's plugin / torch again
set -u
here=$PWD
. ./gpu_env.sh
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
{ echo "date: $(date -u +%FT%TZ)"; echo "commit: $(cat COMMIT)"; echo "base: 593afcd (main)";
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,temperature.gpu,power.draw,power.limit,clocks_throttle_reasons.active --format=csv; } > $r/env.txt 2>&1
t0=$(date +%s)
for t in gpu_attention_decode gpu_tiny_llm; do
  timeout 150 bin/$t > $r/$t.log 2>&1; echo "$t: exit $? ($(( $(date +%s) - t0 )) s)" | tee -a $r/tests.txt
done
python3 torch_attention.py decode > $r/torch-1.json 2> $r/torch-1.log; echo "torch1 $(( $(date +%s) - t0 )) s"
timeout 240 bin/kwb_gpu_bench decode > $r/bench-decode.json 2> $r/bench-decode.log; echo "bench rc $? $(( $(date +%s) - t0 )) s"
KWB_GPU_BACKEND=$here/base.so timeout 60 ./base_bench decode > $r/base-decode.json 2> $r/base-decode.log; echo "base rc $? $(( $(date +%s) - t0 )) s"
python3 torch_attention.py decode > $r/torch-2.json 2> $r/torch-2.log; echo "torch2 $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv >> $r/env.txt 2>&1
tar -C /tmp -czf $o/res.tgz res
grep -h '"B1 \|B1 ctx\|B64' $r/torch-*.log | cut -c1-60,300-420 | head -12
grep -E "batch 1 .*splits (16|32|64) stages (3|5|6)|batch 64 .*splits 1 stages 3" $r/bench-decode.log | sed 's/"cv_pct".*"median":/m=/;s/,"min".*//' | head -60
grep -v ': exit 0' $r/gpu_attention_decode.log | tail -5
