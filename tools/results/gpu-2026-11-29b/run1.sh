#!/usr/bin/env bash
# run1: the GPU suites after this session's changes (T = 0 from a fake step, padded static partials,
# the neighbour-op test), cold FlexSN cache; then SpikingJelly parity (gpu-2026-11-28g/run2.sh).
cd "$(dirname "$0")/../../.."
bash tools/results/gpu-2026-11-28g/run2.sh
