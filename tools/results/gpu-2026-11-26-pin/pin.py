"""Run a Python script with this process (and every thread it starts later) pinned to some CPUs.

Usage: python3 pin.py CPUS SCRIPT [ARGS...]   (CPUS: "1" or "1,2"; "none" leaves the affinity as it is)
os.sched_setaffinity applies to the calling thread; threads started afterwards (autograd's device
threads, Triton's compile pool) inherit it, so setting it before torch is imported pins them all.
"""
import os
import runpy
import sys

cpus, script, *rest = sys.argv[1:]
if cpus != "none":
    os.sched_setaffinity(0, {int(c) for c in cpus.split(",")})
sys.argv = [script, *rest]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
print("affinity", sorted(os.sched_getaffinity(0)), flush=True)
runpy.run_path(script, run_name="__main__")
