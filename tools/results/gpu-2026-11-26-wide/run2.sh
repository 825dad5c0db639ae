#!/usr/bin/env bash
# run.sh's test again (its reference ran under no_grad in run1), on both trees; the back-to-back LIF
# kernels of both trees, alternated; the integration suite. Everything but the logs goes into one tarball.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
new=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
old=$(ls -d "$PWD"/.ab/old/packages/*/src | paste -sd: -)
work=$(mktemp -d)
for tree in old new; do
  path=$new; [ "$tree" = old ] && path=$old
  (cd packages/flexsn-nn && FLEXSN_CACHE_DIR=$work/cache-$tree PYTHONPATH=$path timeout 150 python3 -m pytest -q -rfE \
    -p no:cacheprovider tests/test_large_steps.py 2>&1 | tee "$OUT/large-$tree.log" | tail -3 | sed "s/^/$tree: /")
done
for i in 1 2 3; do
  for tree in new old; do
    path=$new; [ "$tree" = old ] && path=$old
    PYTHONPATH=$path timeout 120 python3 tools/bench.py --out "$work/bench-$tree-$i" --T 8 32 --dtypes fp32 \
      --impls triton clone --cases lif-inference lif-training --no-startup --warmup 10 --rep 50 >/dev/null 2>&1
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], ' '.join(f\"{r['case']}:T{r['T']}={r['copy_ratio']:.3f}\" for r in d['results'] if r['impl']=='triton'))" \
      "$work/bench-$tree-$i/bench.json" "$tree-$i" | tee -a "$OUT/bench.txt"
  done
done
tar czf "$OUT/bench.tgz" -C "$work" $(cd "$work" && ls -d bench-*)
export PYTHONPATH=$new
bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 | tail -4
