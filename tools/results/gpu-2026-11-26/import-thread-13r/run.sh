#!/usr/bin/env bash
# #13 probe: where the import of torch's compiler costs more (see probe.py); each mode thrice, fresh processes.
set -uo pipefail
cd "$(dirname "$0")"
for i in 1 2 3; do for m in main worker worker-always; do timeout 120 python3 probe.py $m 2>&1 | tail -1 | tee -a "$OUT/import_thread.jsonl"; done; done
