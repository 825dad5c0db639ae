#!/bin/bash
# run9: the lowering's GPU tests at the head (ade9b13: one predicate for reindexing views, else as run8), and the
# tiling probe: the template alone with Inductor's coalescing analysis sizing a MutationOutput by the buffer it mutates
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d $PWD/packages/*/src | paste -sd:)
mkdir -p $OUT/run9
timeout 120 python3 -m pytest -p no:randomly tests-integration/test_template_lowering.py -q -rfE -p no:cacheprovider \
  -p no:logging --tb=short > $OUT/run9/tests.log 2>&1
tail -1 $OUT/run9/tests.log
timeout 100 python3 tools/results/gpu-2026-11-30d/tiling_probe.py --impl flexsn_compile_nofuse --template --out $OUT/run9/profile 2>&1 | grep -v "^DEBUG\|Warning\|warn" | tail -9
grep -A12 "def triton_poi_fused_inference_6" $OUT/run9/profile/*_code.py.txt | head -4
grep -o "'kernel_name': 'triton_poi_fused_inference_[0-9]*'.*'tiling_scores': {[^}]*}" $OUT/run9/profile/*_code.py.txt | sed "s/'mutated_arg_names.*'tiling_scores'/ ... tiling_scores/"
rm -f $OUT/run9/profile/*_code.py.txt
