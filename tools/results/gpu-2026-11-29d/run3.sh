#!/usr/bin/env bash
# run3: the full GPU suite and SpikingJelly parity after the kernels' second memory order (a4e29c2, 5f5b8b8), cold
# FlexSN cache (= gpu-2026-11-28g/run2.sh).
cd "$(dirname "$0")/../../.."
bash tools/results/gpu-2026-11-28g/run2.sh
