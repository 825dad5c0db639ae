#!/usr/bin/env bash
# #13 first training result in a fresh process after the joint trace stopped importing sympy and networkx.
# Three cache states, two processes per neuron each:
#   cold           FlexSN's and Triton's caches empty, no bytecode for what the call imports (this image
#                  ships sources only: every process compiles them)
#   cold+bytecode  the same caches empty, Python's bytecode cache warm (PYTHONPYCACHEPREFIX written by an
#                  untimed process first), as after `pip install`, which writes bytecode
#   warm-triton    bytecode and Triton's cache warm (kernels and launchers built by an earlier process),
#                  FlexSN's cache empty
# then a cProfile of one cold+bytecode PLIF process.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
probe=tools/results/gpu-2026-11-28/cold/cold_first.py
for n in plif lif plif lif; do
    c=$(mktemp -d)
    FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$c/t timeout 200 python3 $probe $n cold 2>&1 | tail -1 | tee -a "$OUT/cold_first.jsonl"
    rm -rf "$c"
done
pyc=$(mktemp -d)
c=$(mktemp -d)
PYTHONPYCACHEPREFIX=$pyc FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$c/t timeout 200 python3 $probe plif warming > /dev/null 2>&1
PYTHONPYCACHEPREFIX=$pyc FLEXSN_CACHE_DIR=$c/f2 TRITON_CACHE_DIR=$c/t2 timeout 200 python3 $probe lif warming > /dev/null 2>&1
rm -rf "$c"
for n in plif lif plif lif; do
    c=$(mktemp -d)
    PYTHONPYCACHEPREFIX=$pyc FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$c/t timeout 200 python3 $probe $n cold+bytecode 2>&1 | tail -1 | tee -a "$OUT/cold_first.jsonl"
    rm -rf "$c"
done
warm=$(mktemp -d)
for n in plif lif plif lif; do
    c=$(mktemp -d)
    PYTHONPYCACHEPREFIX=$pyc FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$warm timeout 200 python3 $probe $n warm-triton 2>&1 | tail -1 | tee -a "$OUT/cold_first.jsonl"
    rm -rf "$c"
done
c=$(mktemp -d)
PYTHONPYCACHEPREFIX=$pyc FLEXSN_CACHE_DIR=$c/f TRITON_CACHE_DIR=$c/t timeout 200 python3 $probe plif cold+bytecode profile > "$OUT/profile_plif_cold_bytecode.txt" 2>&1
rm -rf "$c" "$pyc" "$warm"
