#!/usr/bin/env bash
# run3: why run2's default-mode compiled inference at the second batch size was slower fused (2.05 ms) than not fused
# (1.30 ms) while under reduce-overhead it was faster: the warnings and recompiles of that step, and the CUDA kernels
# one call launches (torch.profiler), fused and not.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
unset TRITON_INTERPRET
for impl in flexsn_compile flexsn_compile_nofuse; do
  echo "== $impl"
  PYTHONWARNINGS=always TORCH_LOGS=recompiles timeout 150 python3 tools/results/gpu-2026-11-29j/kernels_per_step.py $impl 2>&1 \
    | grep -iE "flexsn|warn|recompil|kernels|^ *[0-9]+ " | grep -v "DeprecationWarning\|warnings.warn" | cut -c1-260 | head -40
done
