"""Is importing torch's AOTAutograd (and through it torch._dynamo) slower on a worker thread inside
warnings.catch_warnings(record=True) + simplefilter("always"), as flexsn_trace.run_isolated runs the
training trace? One fresh process per mode (run.sh): main | worker | worker-always."""
import sys, threading, time, warnings
import torch

mode = sys.argv[1]
def imp():
    import functorch.compile  # noqa: F401
    import torch._functorch.partitioners  # noqa: F401
caught = []
def always():
    with warnings.catch_warnings(record=True) as c:
        warnings.simplefilter("always")
        imp()
    caught.extend(c)
t = time.perf_counter()
if mode == "main":
    imp()
else:
    th = threading.Thread(target=always if mode == "worker-always" else imp)
    th.start(); th.join()
print(f'{{"mode": "{mode}", "import_s": {time.perf_counter() - t:.3f}, "warnings_recorded": {len(caught)}}}')
