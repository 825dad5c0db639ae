#!/usr/bin/env bash
# run5: run4's profile once per setting, with the host's side (CPU_TABLE: ops by own CPU time): run4 found the
# default-mode step host-bound both ways (fused: GPU busy 3.41 ms of 8.2-10.7 ms; unfused 4.16 of 7.4 ms).
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) CPU_TABLE=30
unset TRITON_INTERPRET
timeout 300 python3 tools/results/gpu-2026-11-28i/net_profile.py flexsn_compile flexsn_compile_nofuse 2>&1 | grep -v "^W\|Warning\|warn" | tail -120
