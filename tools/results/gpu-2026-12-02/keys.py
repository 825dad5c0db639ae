import torch, importlib.util
from flexsn_runtime import FlexSNKernel, op_autograd
from flexsn_runtime.scan_kernel import ScanKernel
from flexsn_runtime.training_plan import plan_for
from flexsn_runtime.prewarm import guess_backward_launch
spec = importlib.util.spec_from_file_location("tp", "packages/flexsn-runtime/tests/test_prewarm.py"); tp = importlib.util.module_from_spec(spec); spec.loader.exec_module(tp)
real = ScanKernel.launch
def launch(self, args, T, ncl, ref, dims=(), zero_init=False, reds=()):
    if self.kind.startswith("backward"):
        print("LAUNCH", self.kind, [(a.dtype, a.data_ptr() % 16, tuple(a.shape)) for a in args], T, ncl, dims, zero_init, reds)
    return real(self, args, T, ncl, ref, dims, zero_init, reds)
ScanKernel.launch = launch
realpw = op_autograd.prewarm_backward
def spy(plan, flat_args, derived):
    print("GUESS", guess_backward_launch(plan, flat_args, derived))
    print("FLAT", [(a.dtype, tuple(a.shape), a.stride()) for a in flat_args])
    return realpw(plan, flat_args, derived)
op_autograd.prewarm_backward = spy
k = FlexSNKernel(tp.decay, 1, 1, 1, num_static=2)
x = (torch.randn(5, 2, 3, 4, device="cuda")).requires_grad_()
w = torch.tensor(0.3, requires_grad=True, device="cuda"); th = torch.linspace(0.8, 1.2, 3, device="cuda").view(3, 1).requires_grad_()
s, v = k.final_state(x, w, th)
s.backward(torch.randn_like(s))
plan = plan_for(k.handle, True, torch.float32)
c = plan.backward.jit_function().device_caches[torch.cuda.current_device()][0]
for key in c: print("KEY", key)
