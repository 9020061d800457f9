#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A stand-in for `kwb` in the model tests: prints recorded progress-stream lines (docs/progress-stream.md)
# so the run controller can be tested without the engine. FAKE_KWB_MODE picks the scenario.
if [ "$1" = "devices" ]; then
  echo '{"devices":[{"kind":"cpu","name":"Fake CPU","cores":2}]}'
  echo "kwb: GPU backend not loaded: no NVIDIA driver (libcuda.so.1 not found)" >&2
  exit 0
fi
[ -n "$FAKE_KWB_ARGS" ] && echo "$@" > "$FAKE_KWB_ARGS"
start='{"type":"start","v":1,"study":"s.json","experiment":"ab-1","workload":"gemm","backend":"cpu","metric":"time_ms","unit":"ms","direction":"lower","plan":{"arms":["baseline","treatment"],"runs_per_arm":3,"warmup_runs":1,"order":["baseline","treatment","treatment","baseline","baseline","treatment"],"stop":"count","max_seconds":3600},"at":"2026-11-30T13:00:00.000Z"}'
sample() { # arm rep position value t warmup
  echo "{\"type\":\"sample\",\"v\":1,\"experiment\":\"ab-1\",\"arm\":\"$1\",\"rep\":$2,\"position\":$3,\"value\":$4,\"values\":{\"time_ms\":$4},\"duration_s\":0.1,\"t_s\":$5,\"warmup\":$6,\"flags\":[]}"
}
case "$FAKE_KWB_MODE" in
done)
  echo "$start"
  sample baseline 0 0 50.0 0.1 true
  sample baseline 0 0 41.0 0.2 false
  echo '{"type":"metric","v":1,"t_s":0.25,"name":"cpu_util","value":97.5,"unit":"%"}'
  echo '{"type":"progress","v":1,"done":1,"planned":6,"elapsed_s":0.2,"eta_s":1.0}'
  sample treatment 0 1 35.0 0.3 false
  sample treatment 1 2 35.5 0.4 false
  echo '{"type":"future_type","v":1,"whatever":1}'
  sample baseline 1 3 41.5 0.5 false
  sample baseline 2 4 42.0 0.6 false
  printf '%s' '{"type":"metric","v":1,"t_s":0.65,"name":"cpu_util",'
  printf '%s\n' '"value":96.0,"unit":"%"}'
  sample treatment 2 5 34.5 0.7 false
  echo '{"type":"progress","v":1,"done":6,"planned":6,"elapsed_s":0.7,"eta_s":0}'
  echo '{"type":"verdict","v":1,"experiment":"ab-1","verdict":{"verdict":"LICENSE"},"final_verdict":{"verdict":"LICENSE"}}'
  echo '{"type":"end","v":1,"status":"done","exit_code":0}'
  exit 0 ;;
slow)
  trap 'echo "{\"type\":\"end\",\"v\":1,\"status\":\"stopped\",\"exit_code\":130}"; exit 130' INT
  echo "$start"
  i=0
  while [ $i -lt 600 ]; do
    sample baseline $i $i 41.0 $i false
    echo "{\"type\":\"progress\",\"v\":1,\"done\":$((i + 1)),\"planned\":600,\"elapsed_s\":$i,\"eta_s\":null}"
    i=$((i + 1))
    sleep 0.1
  done
  exit 0 ;;
fail)
  echo "$start"
  sample baseline 0 0 41.0 0.2 false
  echo '{"type":"error","v":1,"message":"gemm: device lost during repetition 2","continues":false}'
  echo '{"type":"end","v":1,"status":"failed","exit_code":1}'
  exit 1 ;;
stderr)
  echo "kwb: warming up" >&2
  echo "kwb: s.json: field 'experiments[0].plan.runs_per_arm': must be at least 1" >&2
  exit 2 ;;
crash)
  echo "$start"
  printf '%s' '{"type":"sample","v":1,"arm":"base'
  echo "kwb: illegal memory access" >&2
  kill -SEGV $$ ;;
recorded)
  # A recorded stream ($FAKE_KWB_STREAM): its first $FAKE_KWB_SPLIT lines, then, once the file
  # $FAKE_KWB_GO exists, the rest (so a test can act while the run is half-way).
  head -n "$FAKE_KWB_SPLIT" "$FAKE_KWB_STREAM"
  while [ ! -e "$FAKE_KWB_GO" ]; do sleep 0.02; done
  tail -n "+$((FAKE_KWB_SPLIT + 1))" "$FAKE_KWB_STREAM"
  exit 0 ;;
garbage)
  echo "$start"
  echo 'this is not json'
  echo '{"type":"end","v":1,"status":"done","exit_code":0}'
  exit 0 ;;
esac
echo "fake kwb: unknown FAKE_KWB_MODE '$FAKE_KWB_MODE'" >&2
exit 2
