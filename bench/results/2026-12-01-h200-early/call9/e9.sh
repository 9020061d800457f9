#!/usr/bin/env bash
# Call e9 (the decode-kernel selector refactor): every GPU test program.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
export OUT=$r
cd "$here"
KWB_STAGE_TIMEOUT=200 bash run-all.sh env tests > $r/run-all-1.log 2>&1; echo "rc=$?" >> $r/run-all-1.log
cp "$here/e9.sh" $r/
cp $r/gpu-tests.txt $r/env.txt $o/
tar -C /tmp -czf $o/res.tgz res
cat $r/gpu-tests.txt; tail -n 1 $r/run-all-1.log
