#!/usr/bin/env bash
# run7: the full GPU suite on this stop's head (packages, integration, SpikingJelly parity), cold FlexSN cache,
# as tools/results/gpu-2026-11-28g/run2.sh runs it.
cd "$(dirname "$0")/../../.."
bash tools/results/gpu-2026-11-28g/run2.sh
