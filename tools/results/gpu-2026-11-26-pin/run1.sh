#!/usr/bin/env bash
# Device call 1: does the per-call spread between processes come from where the host's scheduler
# puts the threads? LIF per call (tools/bench_per_call.py, T = 8 and 32) in fresh processes,
# unpinned, pinned to one vCPU, pinned to two, alternated; then the issue's own yardsticks
# (../shared/bench/bench_anchors.py and bench_plif.py, copied to .ab/sharedbench) with SpikingJelly 2.0.
set -uo pipefail
cd "$(dirname "$0")/../../.."
here=tools/results/gpu-2026-11-26-pin
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
{ nproc; grep -m1 "model name" /proc/cpuinfo; ls /sys/devices/system/node | grep node; nvidia-smi topo -m 2>&1 | head -4;
  python3 -c "import time,os; t=time.perf_counter(); sum(range(100000)); print('sum_range_us', round((time.perf_counter()-t)*1e6), os.getloadavg())"; } | tee "$OUT/host.txt"
work=$(mktemp -d)
timeout 120 python3 tools/bench_per_call.py --out "$work/warm" --cases lif --impls flexsn --T 8 --peers --warmup 2 --rep 3 > /dev/null 2>&1
for i in 1 2 3; do
  for pin in none 1 1,2; do
    timeout 100 python3 $here/pin.py $pin tools/bench_per_call.py --out "$work/pin$pin-$i" --cases lif --impls flexsn \
      --T 8 32 --peers --warmup 20 --rep 61 2>&1 | tail -5 | sed "s/^/pin=$pin round=$i /" | tee -a "$OUT/pin.txt"
  done
done
tar czf "$OUT/pin.tgz" -C "$work" .
for pin in none 1,2; do
  timeout 300 python3 $here/pin.py $pin .ab/sharedbench/bench_plif.py > "$OUT/plif-pin$pin.log" 2>&1
  grep '"train"' "$OUT/plif-pin$pin.log" | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print('plif pin=$pin', r['impl'], 'T', r['T'], round(r['copy_ratio'],3), 'dw_rel_err', r['dw_rel_err'])"
done
timeout 420 python3 .ab/sharedbench/bench_anchors.py > "$OUT/anchors.log" 2>&1
grep -E '"case": "(inference|train)"' "$OUT/anchors.log" | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(f\"{r['core']:>5} {r['case']:>9} T={r['T']:>2} {r['impl']:>10} {r['copy_ratio']:.3f}\")"
