import sys, time, json, statistics, os
sys.path.insert(0, "tools")
import torch
from per_call_floor import _variants
from bench_per_call import per_call
_now = time.perf_counter
def spin(us):
    end = _now() + us * 1e-6
    while _now() < end: pass
res = {}
for T in (8, 32):
    v = _variants(T, 1 << 22, torch.float32)
    raw = v["raw"]
    rows = {}
    for n in (0, 5, 10, 20, 40, 80):
        def fn(n=n):
            spin(n); raw()
        rows[n] = statistics.median([per_call(fn, 10, 51) * 1e3 for _ in range(5)])
    # spin after the launch (host busy while the kernel runs): should cost nothing
    def after():
        raw(); spin(20)
    rows["after20"] = statistics.median([per_call(after, 10, 51) * 1e3 for _ in range(5)])
    res[T] = rows
    print(T, json.dumps(rows), flush=True)
os.environ.get("OUT") and json.dump(res, open(os.environ["OUT"] + "/spin_probe.json", "w"), indent=1)
