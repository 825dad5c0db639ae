#!/usr/bin/env bash
# run2: the GPU suites and SpikingJelly parity after the T = 0 changes of this session (reference_scan and
# FlexSN's empty calls from a fake step, the kernels' stored dtypes); gpu-2026-11-28g/run2.sh, .whl carried.
cd "$(dirname "$0")/../../.."
bash tools/results/gpu-2026-11-28g/run2.sh
