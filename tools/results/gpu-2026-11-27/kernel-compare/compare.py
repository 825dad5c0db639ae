import json, sys, warnings
import torch
import flexsn_nn as F
from flexsn_nn import surrogate as S
from flexsn_nn import explain
warnings.simplefilter("ignore")
mods = {
 "IF": F.IFNode(), "LIF": F.LIFNode(), "LIF_nodecay": F.LIFNode(decay_input=False), "LIF_detach": F.LIFNode(detach_reset=True),
 "LIF_soft": F.LIFNode(v_reset=None), "PLIF": F.ParametricLIFNode(), "ALIF": F.AdaptiveLIFNode(),
 "CUBA": F.CUBALIFNode(), "Izh": F.IzhikevichNode(), "EIF": F.EIFNode(), "QIF": F.QIFNode(),
}
try:
    mods["Thr"] = F.LearnableThresholdLIFNode(shape=(4,))
except Exception as e:
    print("thr", e, file=sys.stderr)
for name in ["Sigmoid", "ATan", "PiecewiseQuadratic", "SoftSign", "Erf", "SuperSpike", "PiecewiseLeakyReLU", "Rect"]:
    mods["LIF_" + name] = F.LIFNode(surrogate_function=getattr(S, name)())
out = {}
for name, m in mods.items():
    k = m.kernel
    core = k.step_fn if hasattr(k, "step_fn") else k.core
    e = explain(k.core, k.num_inputs, k.num_states, k.num_outputs, k._example_inputs, k._requires_grad, k.num_static)
    out[name] = {"lowers": e.lowers, "trains": e.trains_fused, "reason": e.training_reason, "saved": e.saved_per_step,
                 "bytes": e.bytes_per_element_step}
print(json.dumps(out, indent=1, sort_keys=True))
