"""Does make_fx (inference and a joint forward+backward trace) import torch's compiler on this torch?"""
import json, sys, time
import torch
from torch.fx.experimental.proxy_tensor import make_fx
t = time.perf_counter()
with torch.no_grad():
    make_fx(lambda a, b: ((a * b).sigmoid(),))(torch.randn(4), torch.randn(4))
t_inf = time.perf_counter() - t
after_inf = "torch._dynamo" in sys.modules
def joint(a, b, g):
    o = (a * b).sigmoid()
    return torch.autograd.grad([o], [a], [g])
t = time.perf_counter()
with torch.enable_grad():
    make_fx(joint)(torch.randn(4, requires_grad=True), torch.randn(4), torch.ones(4))
t_joint = time.perf_counter() - t
print(json.dumps({"torch": torch.__version__, "inference_trace_s": round(t_inf, 3), "dynamo_after_inference": after_inf,
                  "joint_trace_s": round(t_joint, 3), "dynamo_after_joint": "torch._dynamo" in sys.modules}))
t = time.perf_counter()
import torch._dynamo  # noqa: F401,E402
print(json.dumps({"import_dynamo_s": round(time.perf_counter() - t, 3)}))
