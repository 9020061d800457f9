set -u
tar -xzf run.tgz
o=$OUT; mkdir -p /tmp/res; export OUT=/tmp/res
KWB_STAGE_TIMEOUT=240 bash run/run-all.sh env tests decode torch-attention > /tmp/res/run-all.log 2>&1
echo "rc=$?" >> /tmp/res/run-all.log
tar -C /tmp -czf $o/res.tgz res
cat /tmp/res/gpu-tests.txt 2>/dev/null; tail -5 /tmp/res/run-all.log
