# AOT ID: ['1_backward']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p


# kernel path: /tmp/torchinductor_root/7r/c7rg2u4cnbhvfyndeyqn6cwqwmdgektxxi5ijwp5vwmrgdjliajr.py
# Topologically Sorted Source Nodes: [empty], Original ATen: [aten.empty]
# Source node to ATen node mapping:
#   empty => empty
# Graph fragment:
#   %empty : Tensor "f32[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.empty.memory_format](args = ([],), kwargs = {dtype: torch.float32, device: cuda:0, pin_memory: False})
#   return %empty
triton_poi_fused_empty_0 = async_compile.triton('triton_poi_fused_empty_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 1}, 
    filename=__file__,
    triton_meta={'signature': {'out_ptr0': '*fp32', 'xnumel': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_empty_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_empty_0(out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 1
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    tmp0 = tl.full([1], 0.0, tl.float32)
    tl.store(out_ptr0 + (tl.full([XBLOCK], 0, tl.int32)), tmp0, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/oj/cojnp33rsbtcn2bplzql7rmcalkehtp6xncddxdebxmg5du6gifs.py
# Topologically Sorted Source Nodes: [unsqueeze, expand, div], Original ATen: [aten.unsqueeze, aten.expand, aten.div]
# Source node to ATen node mapping:
#   div => div
#   expand => expand
#   unsqueeze => unsqueeze
# Graph fragment:
#   %tangents_1 : Tensor "f32[64, 10][10, 1]cuda:0" = PlaceHolder[target=tangents_1]
#   %unsqueeze : Tensor "f32[1, 64, 10][640, 10, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%tangents_1, 0), kwargs = {})
#   %expand : Tensor "f32[8, 64, 10][0, 10, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.expand.default](args = (%unsqueeze, [8, 64, 10]), kwargs = {})
#   %div : Tensor "f32[8, 64, 10][640, 10, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Scalar](args = (%expand, 8), kwargs = {})
#   return %div
triton_poi_fused_div_expand_unsqueeze_1 = async_compile.triton('triton_poi_fused_div_expand_unsqueeze_1', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 8192}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_div_expand_unsqueeze_1', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 43520}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_div_expand_unsqueeze_1(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 5120
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = (xindex % 640)
    x2 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask, eviction_policy='evict_last')
    tmp1 = tl.full([1], 0.125, tl.float32)
    tmp2 = tmp0 * tmp1
    tl.store(out_ptr0 + (x2), tmp2, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/6m/c6mncgchnur5ilv4hu6eypsuap6rzkuundh7wlxlhkjgkf5rpaj5.py
# Topologically Sorted Source Nodes: [view_27, sum_1], Original ATen: [aten.view, aten.sum]
# Source node to ATen node mapping:
#   sum_1 => sum_1
#   view_27 => view_27
# Graph fragment:
#   %getitem_24 : Tensor "f32[8, 64, 10][640, 10, 1]cuda:0" = PlaceHolder[target=getitem_24]
#   %view_27 : Tensor "f32[512, 10][10, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_24, [512, 10]), kwargs = {})
#   %sum_1 : Tensor "f32[1, 10][10, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_27, [0], True), kwargs = {})
#   return %buf8
triton_red_fused_sum_view_2 = async_compile.triton('triton_red_fused_sum_view_2', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 64, 'r0_': 128},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_sum_view_2', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 20800, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_sum_view_2(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 40
    r0_numel = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = (xindex % 10)
    x1 = xindex // 10
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    x3 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 10*r0_2 + 1280*x1), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp2, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/jy/cjyk27dnoya6ifivpidd7jtjz4ygjjb6ya4umyq56ri2cehgtm54.py
# Topologically Sorted Source Nodes: [view_27, sum_1], Original ATen: [aten.view, aten.sum]
# Source node to ATen node mapping:
#   sum_1 => sum_1
#   view_27 => view_27
# Graph fragment:
#   %buf8 : Tensor "f32[1, 10, 4][40, 1, 10]cuda:0" = PlaceHolder[target=buf8]
#   %view_27 : Tensor "f32[512, 10][10, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_24, [512, 10]), kwargs = {})
#   %sum_1 : Tensor "f32[1, 10][10, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_27, [0], True), kwargs = {})
#   return %sum_1
triton_per_fused_sum_view_3 = async_compile.triton('triton_per_fused_sum_view_3', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 16, 'r0_': 4},
    reduction_hint=ReductionHint.OUTER_TINY,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_sum_view_3', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 240, 'r0_': 0}}
)
@triton.jit
def triton_per_fused_sum_view_3(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 10
    r0_numel = 4
    R0_BLOCK: tl.constexpr = 4
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 10*r0_1), xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/ff/cffzmpwfsmfo3ksp3s6k3wdlq7km6rnednomoacbhkbw6fzjxzls.py
# Topologically Sorted Source Nodes: [view_29, view_30, view_31, x_7, max_pool2d_with_indices_backward], Original ATen: [aten.view, aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
# Source node to ATen node mapping:
#   max_pool2d_with_indices_backward => max_pool2d_with_indices_backward
#   view_29 => view_29
#   view_30 => view_30
#   view_31 => view_31
#   x_7 => _low_memory_max_pool_offsets_to_indices_2
# Graph fragment:
#   %getitem_20 : Tensor "i8[512, 128, 4, 4][2048, 16, 4, 1]cuda:0" = PlaceHolder[target=getitem_20]
#   %mm : Tensor "f32[512, 2048][2048, 1]cuda:0" = PlaceHolder[target=mm]
#   %view_29 : Tensor "f32[8, 64, 2048][131072, 2048, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm, [8, 64, 2048]), kwargs = {})
#   %view_30 : Tensor "f32[8, 64, 128, 4, 4][131072, 2048, 16, 4, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%view_29, [8, 64, 128, 4, 4]), kwargs = {})
#   %view_31 : Tensor "f32[512, 128, 4, 4][2048, 16, 4, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%view_30, [512, 128, 4, 4]), kwargs = {})
#   %_low_memory_max_pool_offsets_to_indices_2 : Tensor "i64[512, 128, 4, 4][2048, 16, 4, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_offsets_to_indices.default](args = (%getitem_20, [2, 2], [8, 8], [2, 2], [0, 0], [1, 1]), kwargs = {})
#   %max_pool2d_with_indices_backward : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.max_pool2d_with_indices_backward.default](args = (%view_31, %view_22, [2, 2], [], [0, 0], [1, 1], False, %_low_memory_max_pool_offsets_to_indices_2), kwargs = {})
#   return %max_pool2d_with_indices_backward
triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_view_4 = async_compile.triton('triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_view_4', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 524288, 'x': 8}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*i8', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2DWithYZOverflow', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_view_4', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 5242880, 'x': 33554432}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_view_4(in_ptr0, in_ptr1, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 524288
    xnumel = 8
    yoffset = (tl.program_id(1) + tl.program_id(2) * tl.num_programs(1)) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y0 = (yindex % 8)
    y1 = yindex // 8
    y3 = yindex
    tmp0 = tl.load(in_ptr0 + (4*((y0 // 2) * ((y0 // 2) <= ((-1) + ((4) * ((4) <= (1 + (y0 // 2))) + (1 + (y0 // 2)) * ((1 + (y0 // 2)) < (4))))) + ((-1) + ((4) * ((4) <= (1 + (y0 // 2))) + (1 + (y0 // 2)) * ((1 + (y0 // 2)) < (4)))) * (((-1) + ((4) * ((4) <= (1 + (y0 // 2))) + (1 + (y0 // 2)) * ((1 + (y0 // 2)) < (4)))) < (y0 // 2))) + 16*y1 + ((x2 // 2) * ((x2 // 2) <= ((-1) + ((4) * ((4) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (4))))) + ((-1) + ((4) * ((4) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (4)))) * (((-1) + ((4) * ((4) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (4)))) < (x2 // 2)))), xmask & ymask, eviction_policy='evict_last')
    tmp6 = tl.load(in_ptr1 + (4*((y0 // 2) * ((y0 // 2) <= ((-1) + ((4) * ((4) <= (1 + (y0 // 2))) + (1 + (y0 // 2)) * ((1 + (y0 // 2)) < (4))))) + ((-1) + ((4) * ((4) <= (1 + (y0 // 2))) + (1 + (y0 // 2)) * ((1 + (y0 // 2)) < (4)))) * (((-1) + ((4) * ((4) <= (1 + (y0 // 2))) + (1 + (y0 // 2)) * ((1 + (y0 // 2)) < (4)))) < (y0 // 2))) + 16*y1 + ((x2 // 2) * ((x2 // 2) <= ((-1) + ((4) * ((4) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (4))))) + ((-1) + ((4) * ((4) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (4)))) * (((-1) + ((4) * ((4) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (4)))) < (x2 // 2)))), xmask & ymask, eviction_policy='evict_last')
    tmp1 = tl.full([1, 1], 4, tl.int32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tl.device_assert(((0 <= tmp4) & (tmp4 < 4)) | ~(xmask & ymask), "index out of bounds: 0 <= tmp4 < 4")
    tmp7 = tmp4 + 2*((x2 // 2) * ((x2 // 2) <= ((-1) + ((4) * ((4) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (4))))) + ((-1) + ((4) * ((4) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (4)))) * (((-1) + ((4) * ((4) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (4)))) < (x2 // 2))) + 6*(tmp4 // 2) + 16*((y0 // 2) * ((y0 // 2) <= ((-1) + ((4) * ((4) <= (1 + (y0 // 2))) + (1 + (y0 // 2)) * ((1 + (y0 // 2)) < (4))))) + ((-1) + ((4) * ((4) <= (1 + (y0 // 2))) + (1 + (y0 // 2)) * ((1 + (y0 // 2)) < (4)))) * (((-1) + ((4) * ((4) <= (1 + (y0 // 2))) + (1 + (y0 // 2)) * ((1 + (y0 // 2)) < (4)))) < (y0 // 2)))
    tmp8 = x2 + 8*y0
    tmp9 = tmp7 == tmp8
    tmp10 = tl.full([1, 1], 0.0, tl.float32)
    tmp11 = tl.where(tmp9, tmp6, tmp10)
    tl.store(out_ptr0 + (x2 + 8*y3), tmp11, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/iz/cizlpowozrsk2li4ekcoutiwg5pjjpmtwxumv36msehryja2wzgt.py
# Topologically Sorted Source Nodes: [mean_1], Original ATen: [aten.mean]
# Source node to ATen node mapping:
#   mean_1 => mean_1
# Graph fragment:
#   %convolution_2 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0" = PlaceHolder[target=convolution_2]
#   %mean_1 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%convolution_2, [0, 2, 3], True), kwargs = {})
#   return %buf24
triton_red_fused_mean_5 = async_compile.triton('triton_red_fused_mean_5', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 32768, 'r0_': 128},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_mean_5', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 17039360, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_mean_5(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 32768
    r0_numel = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = (xindex % 128)
    x1 = xindex // 128
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    x3 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 128*r0_2 + 16384*x1), r0_mask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(r0_mask, tmp3, _tmp2)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp2, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/ap/capzgrocen556i5z7426dnpa5rabbqpd2sfwze3a6nhqmdcw6s3p.py
# Topologically Sorted Source Nodes: [mean_1], Original ATen: [aten.mean]
# Source node to ATen node mapping:
#   mean_1 => mean_1
# Graph fragment:
#   %buf24 : Tensor "f32[1, 128, 1, 1, 256][32768, 1, 32768, 32768, 128]cuda:0" = PlaceHolder[target=buf24]
#   %mean_1 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%convolution_2, [0, 2, 3], True), kwargs = {})
#   return %buf25
triton_red_fused_mean_6 = async_compile.triton('triton_red_fused_mean_6', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 128, 'r0_': 256},
    reduction_hint=ReductionHint.OUTER_TINY,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_mean_6', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 132096, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_mean_6(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 128
    r0_numel = 256
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 128*r0_1), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp2, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/xm/cxmou45toglkabpv37cpl743mp2ufxl6ucghajyk2ewuz6nzmdzz.py
# Topologically Sorted Source Nodes: [view_35, view_36, pow_1, mul_9, mul_10, unsqueeze_1, unsqueeze_2, unsqueeze_3, mean_1, sub, mul_11, mul_12, unsqueeze_4, unsqueeze_5, unsqueeze_6, expand_9, div_1, add_12, view_37, add_13, convolution_backward], Original ATen: [aten.view, aten.pow, aten.mul, aten.unsqueeze, aten.mean, aten.sub, aten.expand, aten.div, aten.add, aten.convolution_backward]
# Source node to ATen node mapping:
#   add_12 => add_12
#   add_13 => add_13
#   convolution_backward => convolution_backward
#   div_1 => div_1
#   expand_9 => expand_9
#   mean_1 => mean_1
#   mul_10 => mul_10
#   mul_11 => mul_11
#   mul_12 => mul_12
#   mul_9 => mul_9
#   pow_1 => pow_1
#   sub => sub
#   unsqueeze_1 => unsqueeze_1
#   unsqueeze_2 => unsqueeze_2
#   unsqueeze_3 => unsqueeze_3
#   unsqueeze_4 => unsqueeze_4
#   unsqueeze_5 => unsqueeze_5
#   unsqueeze_6 => unsqueeze_6
#   view_35 => view_35
#   view_36 => view_36
#   view_37 => view_37
# Graph fragment:
#   %getitem_29 : Tensor "f32[128, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=getitem_29]
#   %rsqrt_2 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=rsqrt_2]
#   %convolution_2 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0" = PlaceHolder[target=convolution_2]
#   %buf25 : Tensor "f32[1, 128, 1, 1][128, 1, 128, 128]cuda:0" = PlaceHolder[target=buf25]
#   %getitem_28 : Tensor "f32[128, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=getitem_28]
#   %getitem_26 : Tensor "f32[8, 64, 128, 8, 8][524288, 8192, 64, 8, 1]cuda:0" = PlaceHolder[target=getitem_26]
#   %view_35 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_29, [128]), kwargs = {})
#   %view_36 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_28, [128]), kwargs = {})
#   %pow_1 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%rsqrt_2, 3), kwargs = {})
#   %mul_9 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Scalar](args = (%view_35, -0.5), kwargs = {})
#   %mul_10 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_9, %pow_1), kwargs = {})
#   %unsqueeze_1 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_10, 0), kwargs = {})
#   %unsqueeze_2 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_1, 2), kwargs = {})
#   %unsqueeze_3 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_2, 3), kwargs = {})
#   %mean_1 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%convolution_2, [0, 2, 3], True), kwargs = {})
#   %sub : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution_2, %mean_1), kwargs = {})
#   %mul_11 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Scalar](args = (%unsqueeze_3, 6.103515625e-05), kwargs = {})
#   %mul_12 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_11, %sub), kwargs = {})
#   %unsqueeze_4 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%view_36, 0), kwargs = {})
#   %unsqueeze_5 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_4, 2), kwargs = {})
#   %unsqueeze_6 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_5, 3), kwargs = {})
#   %expand_9 : Tensor "f32[512, 128, 8, 8][0, 1, 0, 0]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.expand.default](args = (%unsqueeze_6, [512, 128, 8, 8]), kwargs = {})
#   %div_1 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Scalar](args = (%expand_9, 32768), kwargs = {})
#   %add_12 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_12, %div_1), kwargs = {})
#   %view_37 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_26, [512, 128, 8, 8]), kwargs = {})
#   %add_13 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_12, %view_37), kwargs = {})
#   %convolution_backward : [num_users=2] = call_function[target=torch.ops.aten.convolution_backward.default](args = (%add_13, %getitem_12, %primals_14, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False]), kwargs = {})
#   return %buf26
triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_7 = async_compile.triton('triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_7', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 32768, 'x': 128}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_7', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 6, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 16777216, 'x': 50333696}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_7(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 32768
    xnumel = 128
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = tl.full([YBLOCK], True, tl.int1)[:, None]
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = (yindex % 64)
    y1 = yindex // 64
    tmp0 = tl.load(in_ptr0 + (x2), xmask, eviction_policy='evict_last')
    tmp3 = tl.load(in_ptr1 + (x2), xmask, eviction_policy='evict_last')
    tmp9 = tl.load(in_out_ptr0 + (x2 + 128*y3), xmask, eviction_policy='evict_last')
    tmp10 = tl.load(in_ptr2 + (x2), xmask, eviction_policy='evict_last')
    tmp15 = tl.load(in_ptr3 + (x2), xmask, eviction_policy='evict_last')
    tmp19 = tl.load(in_ptr4 + (y0 + 64*x2 + 8192*y1), xmask, eviction_policy='evict_last')
    tmp1 = tl.full([1, 1], -0.5, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp4 = tmp3 * tmp3
    tmp5 = tmp4 * tmp3
    tmp6 = tmp2 * tmp5
    tmp7 = tl.full([1, 1], 6.103515625e-05, tl.float32)
    tmp8 = tmp6 * tmp7
    tmp11 = tl.full([1, 1], 32768.0, tl.float32)
    tmp12 = (tmp10 / tmp11)
    tmp13 = tmp9 - tmp12
    tmp14 = tmp8 * tmp13
    tmp16 = tl.full([1, 1], 3.0517578125e-05, tl.float32)
    tmp17 = tmp15 * tmp16
    tmp18 = tmp14 + tmp17
    tmp20 = tmp18 + tmp19
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x2 + 128*y3), tmp20, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/we/cwexpw32pq7lwjl5tmcpvr6asq3jjzx3ucaloy2flb7gjjau5bfd.py
# Topologically Sorted Source Nodes: [x_4, max_pool2d_with_indices_backward_1], Original ATen: [aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
# Source node to ATen node mapping:
#   max_pool2d_with_indices_backward_1 => max_pool2d_with_indices_backward_1
#   x_4 => _low_memory_max_pool_offsets_to_indices_1
# Graph fragment:
#   %getitem_13 : Tensor "i8[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0" = PlaceHolder[target=getitem_13]
#   %getitem_32 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0" = PlaceHolder[target=getitem_32]
#   %_low_memory_max_pool_offsets_to_indices_1 : Tensor "i64[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_offsets_to_indices.default](args = (%getitem_13, [2, 2], [16, 16], [2, 2], [0, 0], [1, 1]), kwargs = {})
#   %max_pool2d_with_indices_backward_1 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.max_pool2d_with_indices_backward.default](args = (%getitem_32, %view_14, [2, 2], [], [0, 0], [1, 1], False, %_low_memory_max_pool_offsets_to_indices_1), kwargs = {})
#   return %max_pool2d_with_indices_backward_1
triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_8 = async_compile.triton('triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_8', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 16777216}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*i8', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_8', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 155189248}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_8(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 16777216
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = (xindex % 128)
    x1 = ((xindex // 128) % 16)
    x2 = ((xindex // 2048) % 16)
    x3 = xindex // 32768
    x4 = ((xindex // 128) % 256)
    x5 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 128*((x1 // 2) * ((x1 // 2) <= ((-1) + ((8) * ((8) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (8))))) + ((-1) + ((8) * ((8) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (8)))) * (((-1) + ((8) * ((8) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (8)))) < (x1 // 2))) + 1024*((x2 // 2) * ((x2 // 2) <= ((-1) + ((8) * ((8) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (8))))) + ((-1) + ((8) * ((8) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (8)))) * (((-1) + ((8) * ((8) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (8)))) < (x2 // 2))) + 8192*x3), None)
    tmp6 = tl.load(in_ptr1 + (x0 + 128*((x1 // 2) * ((x1 // 2) <= ((-1) + ((8) * ((8) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (8))))) + ((-1) + ((8) * ((8) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (8)))) * (((-1) + ((8) * ((8) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (8)))) < (x1 // 2))) + 1024*((x2 // 2) * ((x2 // 2) <= ((-1) + ((8) * ((8) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (8))))) + ((-1) + ((8) * ((8) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (8)))) * (((-1) + ((8) * ((8) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (8)))) < (x2 // 2))) + 8192*x3), None)
    tmp1 = tl.full([XBLOCK], 4, tl.int32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tl.device_assert((0 <= tmp4) & (tmp4 < 4), "index out of bounds: 0 <= tmp4 < 4")
    tmp7 = tmp4 + 2*((x1 // 2) * ((x1 // 2) <= ((-1) + ((8) * ((8) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (8))))) + ((-1) + ((8) * ((8) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (8)))) * (((-1) + ((8) * ((8) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (8)))) < (x1 // 2))) + 14*(tmp4 // 2) + 32*((x2 // 2) * ((x2 // 2) <= ((-1) + ((8) * ((8) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (8))))) + ((-1) + ((8) * ((8) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (8)))) * (((-1) + ((8) * ((8) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (8)))) < (x2 // 2)))
    tmp8 = x4
    tmp9 = tmp7 == tmp8
    tmp10 = tl.full([1], 0.0, tl.float32)
    tmp11 = tl.where(tmp9, tmp6, tmp10)
    tl.store(out_ptr0 + (x5), tmp11, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/z7/cz75lh7je2v5dkzojpdq7xp7ab2axhafkmpjyh6oagsv6vohal54.py
# Topologically Sorted Source Nodes: [mean_2], Original ATen: [aten.mean]
# Source node to ATen node mapping:
#   mean_2 => mean_2
# Graph fragment:
#   %convolution_1 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0" = PlaceHolder[target=convolution_1]
#   %mean_2 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%convolution_1, [0, 2, 3], True), kwargs = {})
#   return %buf44
triton_red_fused_mean_9 = async_compile.triton('triton_red_fused_mean_9', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 131072, 'r0_': 128},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_mean_9', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 68157440, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_mean_9(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 131072
    r0_numel = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = (xindex % 128)
    x1 = xindex // 128
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    x3 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 128*r0_2 + 16384*x1), r0_mask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(r0_mask, tmp3, _tmp2)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp2, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/34/c34s7cbbccxoommxmxsch53nzqpx4q4wmezcl7s7ij3jgld26r4u.py
# Topologically Sorted Source Nodes: [mean_2], Original ATen: [aten.mean]
# Source node to ATen node mapping:
#   mean_2 => mean_2
# Graph fragment:
#   %buf44 : Tensor "f32[1, 128, 1, 1, 1024][131072, 1, 131072, 131072, 128]cuda:0" = PlaceHolder[target=buf44]
#   %mean_2 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%convolution_1, [0, 2, 3], True), kwargs = {})
#   return %buf45
triton_red_fused_mean_10 = async_compile.triton('triton_red_fused_mean_10', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 128, 'r0_': 1024},
    reduction_hint=ReductionHint.OUTER_TINY,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_mean_10', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 525312, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_mean_10(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 128
    r0_numel = 1024
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 128*r0_1), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp2, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/qb/cqblhy6jnnzmlgeylfbhqcifmbc4zgtxezhuxhh5yn7citeo5pl6.py
# Topologically Sorted Source Nodes: [view_43, view_44, pow_2, mul_13, mul_14, unsqueeze_7, unsqueeze_8, unsqueeze_9, mean_2, sub_1, mul_15, mul_16, unsqueeze_10, unsqueeze_11, unsqueeze_12, expand_16, div_2, add_14, view_45, add_15, convolution_backward_1], Original ATen: [aten.view, aten.pow, aten.mul, aten.unsqueeze, aten.mean, aten.sub, aten.expand, aten.div, aten.add, aten.convolution_backward]
# Source node to ATen node mapping:
#   add_14 => add_14
#   add_15 => add_15
#   convolution_backward_1 => convolution_backward_1
#   div_2 => div_2
#   expand_16 => expand_16
#   mean_2 => mean_2
#   mul_13 => mul_13
#   mul_14 => mul_14
#   mul_15 => mul_15
#   mul_16 => mul_16
#   pow_2 => pow_2
#   sub_1 => sub_1
#   unsqueeze_10 => unsqueeze_10
#   unsqueeze_11 => unsqueeze_11
#   unsqueeze_12 => unsqueeze_12
#   unsqueeze_7 => unsqueeze_7
#   unsqueeze_8 => unsqueeze_8
#   unsqueeze_9 => unsqueeze_9
#   view_43 => view_43
#   view_44 => view_44
#   view_45 => view_45
# Graph fragment:
#   %getitem_38 : Tensor "f32[128, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=getitem_38]
#   %rsqrt_1 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=rsqrt_1]
#   %convolution_1 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0" = PlaceHolder[target=convolution_1]
#   %buf45 : Tensor "f32[1, 128, 1, 1][128, 1, 128, 128]cuda:0" = PlaceHolder[target=buf45]
#   %getitem_37 : Tensor "f32[128, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=getitem_37]
#   %getitem_35 : Tensor "f32[8, 64, 128, 16, 16][2097152, 32768, 256, 16, 1]cuda:0" = PlaceHolder[target=getitem_35]
#   %view_43 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_38, [128]), kwargs = {})
#   %view_44 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_37, [128]), kwargs = {})
#   %pow_2 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%rsqrt_1, 3), kwargs = {})
#   %mul_13 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Scalar](args = (%view_43, -0.5), kwargs = {})
#   %mul_14 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_13, %pow_2), kwargs = {})
#   %unsqueeze_7 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_14, 0), kwargs = {})
#   %unsqueeze_8 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_7, 2), kwargs = {})
#   %unsqueeze_9 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_8, 3), kwargs = {})
#   %mean_2 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%convolution_1, [0, 2, 3], True), kwargs = {})
#   %sub_1 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution_1, %mean_2), kwargs = {})
#   %mul_15 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Scalar](args = (%unsqueeze_9, 1.52587890625e-05), kwargs = {})
#   %mul_16 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_15, %sub_1), kwargs = {})
#   %unsqueeze_10 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%view_44, 0), kwargs = {})
#   %unsqueeze_11 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_10, 2), kwargs = {})
#   %unsqueeze_12 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_11, 3), kwargs = {})
#   %expand_16 : Tensor "f32[512, 128, 16, 16][0, 1, 0, 0]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.expand.default](args = (%unsqueeze_12, [512, 128, 16, 16]), kwargs = {})
#   %div_2 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Scalar](args = (%expand_16, 131072), kwargs = {})
#   %add_14 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_16, %div_2), kwargs = {})
#   %view_45 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_35, [512, 128, 16, 16]), kwargs = {})
#   %add_15 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_14, %view_45), kwargs = {})
#   %convolution_backward_1 : [num_users=2] = call_function[target=torch.ops.aten.convolution_backward.default](args = (%add_15, %getitem_5, %primals_8, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False]), kwargs = {})
#   return %buf46
triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_11 = async_compile.triton('triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_11', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 131072, 'x': 128}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2DWithYZOverflow', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_11', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 6, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 67108864, 'x': 201328640}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_11(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 131072
    xnumel = 128
    yoffset = (tl.program_id(1) + tl.program_id(2) * tl.num_programs(1)) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = (yindex % 256)
    y1 = yindex // 256
    tmp0 = tl.load(in_ptr0 + (x2), xmask, eviction_policy='evict_last')
    tmp3 = tl.load(in_ptr1 + (x2), xmask, eviction_policy='evict_last')
    tmp9 = tl.load(in_out_ptr0 + (x2 + 128*y3), xmask & ymask, eviction_policy='evict_last')
    tmp10 = tl.load(in_ptr2 + (x2), xmask, eviction_policy='evict_last')
    tmp15 = tl.load(in_ptr3 + (x2), xmask, eviction_policy='evict_last')
    tmp19 = tl.load(in_ptr4 + (y0 + 256*x2 + 32768*y1), xmask & ymask, eviction_policy='evict_last')
    tmp1 = tl.full([1, 1], -0.5, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp4 = tmp3 * tmp3
    tmp5 = tmp4 * tmp3
    tmp6 = tmp2 * tmp5
    tmp7 = tl.full([1, 1], 1.52587890625e-05, tl.float32)
    tmp8 = tmp6 * tmp7
    tmp11 = tl.full([1, 1], 131072.0, tl.float32)
    tmp12 = (tmp10 / tmp11)
    tmp13 = tmp9 - tmp12
    tmp14 = tmp8 * tmp13
    tmp16 = tl.full([1, 1], 7.62939453125e-06, tl.float32)
    tmp17 = tmp15 * tmp16
    tmp18 = tmp14 + tmp17
    tmp20 = tmp18 + tmp19
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x2 + 128*y3), tmp20, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/5v/c5v52thga44chixco3vkfd7trnvbv6uta5cfk25stcqu76eqpfmu.py
# Topologically Sorted Source Nodes: [x_1, max_pool2d_with_indices_backward_2], Original ATen: [aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
# Source node to ATen node mapping:
#   max_pool2d_with_indices_backward_2 => max_pool2d_with_indices_backward_2
#   x_1 => _low_memory_max_pool_offsets_to_indices
# Graph fragment:
#   %getitem_6 : Tensor "i8[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0" = PlaceHolder[target=getitem_6]
#   %getitem_41 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0" = PlaceHolder[target=getitem_41]
#   %_low_memory_max_pool_offsets_to_indices : Tensor "i64[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_offsets_to_indices.default](args = (%getitem_6, [2, 2], [32, 32], [2, 2], [0, 0], [1, 1]), kwargs = {})
#   %max_pool2d_with_indices_backward_2 : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.max_pool2d_with_indices_backward.default](args = (%getitem_41, %view_6, [2, 2], [], [0, 0], [1, 1], False, %_low_memory_max_pool_offsets_to_indices), kwargs = {})
#   return %max_pool2d_with_indices_backward_2
triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_12 = async_compile.triton('triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_12', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 67108864}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*i8', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_12', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 620756992}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_12(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 67108864
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = (xindex % 128)
    x1 = ((xindex // 128) % 32)
    x2 = ((xindex // 4096) % 32)
    x3 = xindex // 131072
    x4 = ((xindex // 128) % 1024)
    x5 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 128*((x1 // 2) * ((x1 // 2) <= ((-1) + ((16) * ((16) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (16))))) + ((-1) + ((16) * ((16) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (16)))) * (((-1) + ((16) * ((16) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (16)))) < (x1 // 2))) + 2048*((x2 // 2) * ((x2 // 2) <= ((-1) + ((16) * ((16) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (16))))) + ((-1) + ((16) * ((16) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (16)))) * (((-1) + ((16) * ((16) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (16)))) < (x2 // 2))) + 32768*x3), None)
    tmp6 = tl.load(in_ptr1 + (x0 + 128*((x1 // 2) * ((x1 // 2) <= ((-1) + ((16) * ((16) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (16))))) + ((-1) + ((16) * ((16) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (16)))) * (((-1) + ((16) * ((16) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (16)))) < (x1 // 2))) + 2048*((x2 // 2) * ((x2 // 2) <= ((-1) + ((16) * ((16) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (16))))) + ((-1) + ((16) * ((16) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (16)))) * (((-1) + ((16) * ((16) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (16)))) < (x2 // 2))) + 32768*x3), None)
    tmp1 = tl.full([XBLOCK], 4, tl.int32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tl.device_assert((0 <= tmp4) & (tmp4 < 4), "index out of bounds: 0 <= tmp4 < 4")
    tmp7 = tmp4 + 2*((x1 // 2) * ((x1 // 2) <= ((-1) + ((16) * ((16) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (16))))) + ((-1) + ((16) * ((16) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (16)))) * (((-1) + ((16) * ((16) <= (1 + (x1 // 2))) + (1 + (x1 // 2)) * ((1 + (x1 // 2)) < (16)))) < (x1 // 2))) + 30*(tmp4 // 2) + 64*((x2 // 2) * ((x2 // 2) <= ((-1) + ((16) * ((16) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (16))))) + ((-1) + ((16) * ((16) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (16)))) * (((-1) + ((16) * ((16) <= (1 + (x2 // 2))) + (1 + (x2 // 2)) * ((1 + (x2 // 2)) < (16)))) < (x2 // 2)))
    tmp8 = x4
    tmp9 = tmp7 == tmp8
    tmp10 = tl.full([1], 0.0, tl.float32)
    tmp11 = tl.where(tmp9, tmp6, tmp10)
    tl.store(out_ptr0 + (x5), tmp11, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/cj/ccjb2tedb45lrpakncmeennpggy74csyqiffkzbhqqo4exisgopn.py
# Topologically Sorted Source Nodes: [mean_3], Original ATen: [aten.mean]
# Source node to ATen node mapping:
#   mean_3 => mean_3
# Graph fragment:
#   %convolution : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0" = PlaceHolder[target=convolution]
#   %mean_3 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%convolution, [0, 2, 3], True), kwargs = {})
#   return %buf64
triton_red_fused_mean_13 = async_compile.triton('triton_red_fused_mean_13', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 131072, 'r0_': 512},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_mean_13', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 269484032, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_mean_13(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 131072
    r0_numel = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = (xindex % 128)
    x1 = xindex // 128
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    x3 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 128*r0_2 + 65536*x1), r0_mask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(r0_mask, tmp3, _tmp2)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp2, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/up/cupx2zamjnbokvy7mctwu4xid6xsnu6eglvtzgett64vfek2uinw.py
# Topologically Sorted Source Nodes: [view_51, view_52, pow_3, mul_17, mul_18, unsqueeze_13, unsqueeze_14, unsqueeze_15, mean_3, sub_2, mul_19, mul_20, unsqueeze_16, unsqueeze_17, unsqueeze_18, expand_23, div_3, add_16, view_53, add_17, convolution_backward_2], Original ATen: [aten.view, aten.pow, aten.mul, aten.unsqueeze, aten.mean, aten.sub, aten.expand, aten.div, aten.add, aten.convolution_backward]
# Source node to ATen node mapping:
#   add_16 => add_16
#   add_17 => add_17
#   convolution_backward_2 => convolution_backward_2
#   div_3 => div_3
#   expand_23 => expand_23
#   mean_3 => mean_3
#   mul_17 => mul_17
#   mul_18 => mul_18
#   mul_19 => mul_19
#   mul_20 => mul_20
#   pow_3 => pow_3
#   sub_2 => sub_2
#   unsqueeze_13 => unsqueeze_13
#   unsqueeze_14 => unsqueeze_14
#   unsqueeze_15 => unsqueeze_15
#   unsqueeze_16 => unsqueeze_16
#   unsqueeze_17 => unsqueeze_17
#   unsqueeze_18 => unsqueeze_18
#   view_51 => view_51
#   view_52 => view_52
#   view_53 => view_53
# Graph fragment:
#   %getitem_47 : Tensor "f32[128, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=getitem_47]
#   %rsqrt : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=rsqrt]
#   %convolution : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0" = PlaceHolder[target=convolution]
#   %buf65 : Tensor "f32[1, 128, 1, 1][128, 1, 128, 128]cuda:0" = PlaceHolder[target=buf65]
#   %getitem_46 : Tensor "f32[128, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=getitem_46]
#   %getitem_44 : Tensor "f32[8, 64, 128, 32, 32][8388608, 131072, 1024, 32, 1]cuda:0" = PlaceHolder[target=getitem_44]
#   %view_51 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_47, [128]), kwargs = {})
#   %view_52 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_46, [128]), kwargs = {})
#   %pow_3 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%rsqrt, 3), kwargs = {})
#   %mul_17 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Scalar](args = (%view_51, -0.5), kwargs = {})
#   %mul_18 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_17, %pow_3), kwargs = {})
#   %unsqueeze_13 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_18, 0), kwargs = {})
#   %unsqueeze_14 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_13, 2), kwargs = {})
#   %unsqueeze_15 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_14, 3), kwargs = {})
#   %mean_3 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%convolution, [0, 2, 3], True), kwargs = {})
#   %sub_2 : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution, %mean_3), kwargs = {})
#   %mul_19 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Scalar](args = (%unsqueeze_15, 3.814697265625e-06), kwargs = {})
#   %mul_20 : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_19, %sub_2), kwargs = {})
#   %unsqueeze_16 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%view_52, 0), kwargs = {})
#   %unsqueeze_17 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_16, 2), kwargs = {})
#   %unsqueeze_18 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_17, 3), kwargs = {})
#   %expand_23 : Tensor "f32[512, 128, 32, 32][0, 1, 0, 0]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.expand.default](args = (%unsqueeze_18, [512, 128, 32, 32]), kwargs = {})
#   %div_3 : Tensor "f32[512, 128, 32, 32][131072, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Scalar](args = (%expand_23, 524288), kwargs = {})
#   %add_16 : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_20, %div_3), kwargs = {})
#   %view_53 : Tensor "f32[512, 128, 32, 32][131072, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_44, [512, 128, 32, 32]), kwargs = {})
#   %add_17 : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_16, %view_53), kwargs = {})
#   %convolution_backward_2 : [num_users=1] = call_function[target=torch.ops.aten.convolution_backward.default](args = (%add_17, %view, %primals_2, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, False]), kwargs = {})
#   return %buf66
triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_14 = async_compile.triton('triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_14', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 524288, 'x': 128}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2DWithYZOverflow', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_14', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 6, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 268435456, 'x': 805308416}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_14(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 524288
    xnumel = 128
    yoffset = (tl.program_id(1) + tl.program_id(2) * tl.num_programs(1)) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = (yindex % 1024)
    y1 = yindex // 1024
    tmp0 = tl.load(in_ptr0 + (x2), xmask, eviction_policy='evict_last')
    tmp3 = tl.load(in_ptr1 + (x2), xmask, eviction_policy='evict_last')
    tmp9 = tl.load(in_out_ptr0 + (x2 + 128*y3), xmask & ymask, eviction_policy='evict_last')
    tmp10 = tl.load(in_ptr2 + (x2), xmask, eviction_policy='evict_last')
    tmp15 = tl.load(in_ptr3 + (x2), xmask, eviction_policy='evict_last')
    tmp19 = tl.load(in_ptr4 + (y0 + 1024*x2 + 131072*y1), xmask & ymask, eviction_policy='evict_last')
    tmp1 = tl.full([1, 1], -0.5, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp4 = tmp3 * tmp3
    tmp5 = tmp4 * tmp3
    tmp6 = tmp2 * tmp5
    tmp7 = tl.full([1, 1], 3.814697265625e-06, tl.float32)
    tmp8 = tmp6 * tmp7
    tmp11 = tl.full([1, 1], 524288.0, tl.float32)
    tmp12 = (tmp10 / tmp11)
    tmp13 = tmp9 - tmp12
    tmp14 = tmp8 * tmp13
    tmp16 = tl.full([1, 1], 1.9073486328125e-06, tl.float32)
    tmp17 = tmp15 * tmp16
    tmp18 = tmp14 + tmp17
    tmp20 = tmp18 + tmp19
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x2 + 128*y3), tmp20, xmask & ymask)
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

class Runner:
    def __init__(self, partitions):
        self.partitions = partitions

    def recursively_apply_fns(self, fns):
        new_callables = []
        for fn, c in zip(fns, self.partitions):
            new_callables.append(fn(c))
        self.partitions = new_callables

    def call(self, args):
        primals_2, primals_6, primals_8, primals_12, primals_14, primals_18, primals_20, view, convolution, rsqrt, view_2, getitem_4, view_6, getitem_5, getitem_6, convolution_1, rsqrt_1, view_10, getitem_11, view_14, getitem_12, getitem_13, convolution_2, rsqrt_2, view_18, getitem_18, view_22, getitem_20, view_25, getitem_23, tangents_1, tangents_2, tangents_3, tangents_4, tangents_5 = args
        args.clear()
        assert_size_stride(primals_2, (128, 3, 3, 3), (27, 1, 9, 3))
        assert_size_stride(primals_6, (128, ), (1, ))
        assert_size_stride(primals_8, (128, 128, 3, 3), (1152, 1, 384, 128))
        assert_size_stride(primals_12, (128, ), (1, ))
        assert_size_stride(primals_14, (128, 128, 3, 3), (1152, 1, 384, 128))
        assert_size_stride(primals_18, (128, ), (1, ))
        assert_size_stride(primals_20, (10, 2048), (2048, 1))
        assert_size_stride(view, (512, 3, 32, 32), (3072, 1, 96, 3))
        assert_size_stride(convolution, (512, 128, 32, 32), (131072, 1, 4096, 128))
        assert_size_stride(rsqrt, (128, ), (1, ))
        assert_size_stride(view_2, (128, 1, 1), (1, 1, 1))
        assert_size_stride(getitem_4, (8, 64, 128, 32, 32), (8388608, 131072, 1024, 32, 1))
        assert_size_stride(view_6, (512, 128, 32, 32), (131072, 1, 4096, 128))
        assert_size_stride(getitem_5, (512, 128, 16, 16), (32768, 1, 2048, 128))
        assert_size_stride(getitem_6, (512, 128, 16, 16), (32768, 1, 2048, 128))
        assert_size_stride(convolution_1, (512, 128, 16, 16), (32768, 1, 2048, 128))
        assert_size_stride(rsqrt_1, (128, ), (1, ))
        assert_size_stride(view_10, (128, 1, 1), (1, 1, 1))
        assert_size_stride(getitem_11, (8, 64, 128, 16, 16), (2097152, 32768, 256, 16, 1))
        assert_size_stride(view_14, (512, 128, 16, 16), (32768, 1, 2048, 128))
        assert_size_stride(getitem_12, (512, 128, 8, 8), (8192, 1, 1024, 128))
        assert_size_stride(getitem_13, (512, 128, 8, 8), (8192, 1, 1024, 128))
        assert_size_stride(convolution_2, (512, 128, 8, 8), (8192, 1, 1024, 128))
        assert_size_stride(rsqrt_2, (128, ), (1, ))
        assert_size_stride(view_18, (128, 1, 1), (1, 1, 1))
        assert_size_stride(getitem_18, (8, 64, 128, 8, 8), (524288, 8192, 64, 8, 1))
        assert_size_stride(view_22, (512, 128, 8, 8), (8192, 64, 8, 1))
        assert_size_stride(getitem_20, (512, 128, 4, 4), (2048, 16, 4, 1))
        assert_size_stride(view_25, (512, 2048), (2048, 1))
        assert_size_stride(getitem_23, (8, 64, 10), (640, 10, 1))
        assert_size_stride(tangents_1, (64, 10), (10, 1))
        assert_size_stride(tangents_2, (64, 128, 32, 32), (131072, 1024, 32, 1))
        assert_size_stride(tangents_3, (64, 128, 16, 16), (32768, 256, 16, 1))
        assert_size_stride(tangents_4, (64, 128, 8, 8), (8192, 64, 8, 1))
        assert_size_stride(tangents_5, (64, 10), (10, 1))
        with torch.cuda._DeviceGuard(0):
            torch.cuda.set_device(0)
            buf0 = empty_strided_cuda((), (), torch.float32)
            # Topologically Sorted Source Nodes: [empty], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf0, 1, stream=stream0)
            buf1 = empty_strided_cuda((), (), torch.float32)
            # Topologically Sorted Source Nodes: [empty_1], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf1, 1, stream=stream0)
            buf2 = empty_strided_cuda((8, 64, 10), (640, 10, 1), torch.float32)
            # Topologically Sorted Source Nodes: [unsqueeze, expand, div], Original ATen: [aten.unsqueeze, aten.expand, aten.div]
            stream0 = get_raw_stream(0)
            triton_poi_fused_div_expand_unsqueeze_1.run(tangents_1, buf2, 5120, stream=stream0)
            del tangents_1
            # Topologically Sorted Source Nodes: [unsqueeze, expand, div, expand_1, expand_2, backward], Original ATen: [aten.unsqueeze, aten.expand, aten.div, flexsn.backward]
            buf3 = torch.ops.flexsn.backward.default(4, [buf2, tangents_5], [getitem_23], [reinterpret_tensor(buf0, (8, 64, 10), (0, 0, 0), 0), reinterpret_tensor(buf1, (64, 10), (0, 0), 0)], True)
            del buf2
            del getitem_23
            del tangents_5
            buf4 = buf3[0]
            assert_size_stride(buf4, (8, 64, 10), (640, 10, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf4, 16, 'torch.ops.flexsn.backward.default')
            del buf3
            buf6 = empty_strided_cuda((512, 2048), (2048, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_27, x_9, permute_1, mm], Original ATen: [aten.view, aten.t, aten.mm]
            extern_kernels.mm(reinterpret_tensor(buf4, (512, 10), (10, 1), 0), primals_20, out=buf6)
            del primals_20
            buf7 = empty_strided_cuda((10, 2048), (2048, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_27, permute_2, mm_1], Original ATen: [aten.view, aten.t, aten.mm]
            extern_kernels.mm(reinterpret_tensor(buf4, (10, 512), (1, 10), 0), view_25, out=buf7)
            del view_25
            buf8 = empty_strided_cuda((1, 10, 4), (40, 1, 10), torch.float32)
            # Topologically Sorted Source Nodes: [view_27, sum_1], Original ATen: [aten.view, aten.sum]
            stream0 = get_raw_stream(0)
            triton_red_fused_sum_view_2.run(buf4, buf8, 40, 128, stream=stream0)
            del buf4
            buf9 = empty_strided_cuda((1, 10), (10, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_27, sum_1], Original ATen: [aten.view, aten.sum]
            stream0 = get_raw_stream(0)
            triton_per_fused_sum_view_3.run(buf8, buf9, 10, 4, stream=stream0)
            del buf8
            buf10 = buf1; del buf1  # reuse
            # Topologically Sorted Source Nodes: [empty_2], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf10, 1, stream=stream0)
            buf11 = buf0; del buf0  # reuse
            # Topologically Sorted Source Nodes: [empty_3], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf11, 1, stream=stream0)
            buf12 = empty_strided_cuda((), (), torch.float32)
            # Topologically Sorted Source Nodes: [empty_4], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf12, 1, stream=stream0)
            buf13 = empty_strided_cuda((), (), torch.float32)
            # Topologically Sorted Source Nodes: [empty_5], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf13, 1, stream=stream0)
            buf14 = empty_strided_cuda((), (), torch.float32)
            # Topologically Sorted Source Nodes: [empty_6], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf14, 1, stream=stream0)
            buf15 = empty_strided_cuda((), (), torch.float32)
            # Topologically Sorted Source Nodes: [empty_7], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf15, 1, stream=stream0)
            buf16 = empty_strided_cuda((512, 128, 8, 8), (8192, 64, 8, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_29, view_30, view_31, x_7, max_pool2d_with_indices_backward], Original ATen: [aten.view, aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_view_4.run(getitem_20, buf6, buf16, 524288, 8, stream=stream0)
            del buf6
            del getitem_20
            # Topologically Sorted Source Nodes: [view_29, view_30, view_31, x_7, max_pool2d_with_indices_backward, view_32, expand_3, expand_4, expand_5, expand_6, expand_7, expand_8, backward_1], Original ATen: [aten.view, aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward, aten.expand, flexsn.backward]
            buf17 = torch.ops.flexsn.backward.default(7, [reinterpret_tensor(buf16, (8, 64, 128, 8, 8), (524288, 8192, 64, 8, 1), 0), tangents_4], [reinterpret_tensor(rsqrt_2, (128, 1, 1), (1, 1, 1), 0), reinterpret_tensor(primals_18, (128, 1, 1), (1, 1, 1), 0), getitem_18, view_18, reinterpret_tensor(convolution_2, (8, 64, 128, 8, 8), (524288, 8192, 1, 1024, 128), 0)], [reinterpret_tensor(buf10, (8, 64, 128, 8, 8), (0, 0, 0, 0, 0), 0), reinterpret_tensor(buf11, (64, 128, 8, 8), (0, 0, 0, 0), 0), reinterpret_tensor(buf12, (128, 1, 1), (0, 0, 0), 0), reinterpret_tensor(buf13, (128, 1, 1), (0, 0, 0), 0), reinterpret_tensor(buf14, (128, 1, 1), (0, 0, 0), 0), reinterpret_tensor(buf15, (128, 1, 1), (0, 0, 0), 0)], True)
            del buf16
            del getitem_18
            del primals_18
            del tangents_4
            del view_18
            buf18 = buf17[0]
            assert_size_stride(buf18, (8, 64, 128, 8, 8), (524288, 8192, 64, 8, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf18, 16, 'torch.ops.flexsn.backward.default')
            buf20 = buf17[2]
            assert_size_stride(buf20, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf20, 16, 'torch.ops.flexsn.backward.default')
            buf21 = buf17[3]
            assert_size_stride(buf21, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf21, 16, 'torch.ops.flexsn.backward.default')
            buf22 = buf17[4]
            assert_size_stride(buf22, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf22, 16, 'torch.ops.flexsn.backward.default')
            buf23 = buf17[5]
            assert_size_stride(buf23, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf23, 16, 'torch.ops.flexsn.backward.default')
            del buf17
            buf24 = empty_strided_cuda((1, 128, 1, 1, 256), (32768, 1, 32768, 32768, 128), torch.float32)
            # Topologically Sorted Source Nodes: [mean_1], Original ATen: [aten.mean]
            stream0 = get_raw_stream(0)
            triton_red_fused_mean_5.run(convolution_2, buf24, 32768, 128, stream=stream0)
            buf25 = empty_strided_cuda((1, 128, 1, 1), (128, 1, 128, 128), torch.float32)
            # Topologically Sorted Source Nodes: [mean_1], Original ATen: [aten.mean]
            stream0 = get_raw_stream(0)
            triton_red_fused_mean_6.run(buf24, buf25, 128, 256, stream=stream0)
            del buf24
            buf26 = convolution_2; del convolution_2  # reuse
            # Topologically Sorted Source Nodes: [view_35, view_36, pow_1, mul_9, mul_10, unsqueeze_1, unsqueeze_2, unsqueeze_3, mean_1, sub, mul_11, mul_12, unsqueeze_4, unsqueeze_5, unsqueeze_6, expand_9, div_1, add_12, view_37, add_13, convolution_backward], Original ATen: [aten.view, aten.pow, aten.mul, aten.unsqueeze, aten.mean, aten.sub, aten.expand, aten.div, aten.add, aten.convolution_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_7.run(buf26, buf21, rsqrt_2, buf25, buf20, buf18, 32768, 128, stream=stream0)
            del buf18
            del buf20
            del buf21
            del rsqrt_2
            # Topologically Sorted Source Nodes: [view_35, view_36, pow_1, mul_9, mul_10, unsqueeze_1, unsqueeze_2, unsqueeze_3, mean_1, sub, mul_11, mul_12, unsqueeze_4, unsqueeze_5, unsqueeze_6, expand_9, div_1, add_12, view_37, add_13, convolution_backward], Original ATen: [aten.view, aten.pow, aten.mul, aten.unsqueeze, aten.mean, aten.sub, aten.expand, aten.div, aten.add, aten.convolution_backward]
            buf27 = torch.ops.aten.convolution_backward.default(buf26, getitem_12, primals_14, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False])
            del buf26
            del getitem_12
            del primals_14
            buf28 = buf27[0]
            assert_size_stride(buf28, (512, 128, 8, 8), (8192, 1, 1024, 128), 'torch.ops.aten.convolution_backward.default')
            assert_alignment(buf28, 16, 'torch.ops.aten.convolution_backward.default')
            buf29 = buf27[1]
            assert_size_stride(buf29, (128, 128, 3, 3), (1152, 1, 384, 128), 'torch.ops.aten.convolution_backward.default')
            assert_alignment(buf29, 16, 'torch.ops.aten.convolution_backward.default')
            del buf27
            buf30 = empty_strided_cuda((512, 128, 16, 16), (32768, 1, 2048, 128), torch.float32)
            # Topologically Sorted Source Nodes: [x_4, max_pool2d_with_indices_backward_1], Original ATen: [aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_8.run(getitem_13, buf28, buf30, 16777216, stream=stream0)
            del buf28
            del getitem_13
            buf31 = buf15; del buf15  # reuse
            # Topologically Sorted Source Nodes: [empty_8], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf31, 1, stream=stream0)
            buf32 = buf14; del buf14  # reuse
            # Topologically Sorted Source Nodes: [empty_9], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf32, 1, stream=stream0)
            buf33 = buf13; del buf13  # reuse
            # Topologically Sorted Source Nodes: [empty_10], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf33, 1, stream=stream0)
            buf34 = buf12; del buf12  # reuse
            # Topologically Sorted Source Nodes: [empty_11], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf34, 1, stream=stream0)
            buf35 = buf11; del buf11  # reuse
            # Topologically Sorted Source Nodes: [empty_12], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf35, 1, stream=stream0)
            buf36 = buf10; del buf10  # reuse
            # Topologically Sorted Source Nodes: [empty_13], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf36, 1, stream=stream0)
            # Topologically Sorted Source Nodes: [view_40, expand_10, expand_11, expand_12, expand_13, expand_14, expand_15, backward_2], Original ATen: [aten.view, aten.expand, flexsn.backward]
            buf37 = torch.ops.flexsn.backward.default(6, [reinterpret_tensor(buf30, (8, 64, 128, 16, 16), (2097152, 32768, 1, 2048, 128), 0), tangents_3], [reinterpret_tensor(rsqrt_1, (128, 1, 1), (1, 1, 1), 0), reinterpret_tensor(primals_12, (128, 1, 1), (1, 1, 1), 0), getitem_11, view_10, reinterpret_tensor(convolution_1, (8, 64, 128, 16, 16), (2097152, 32768, 1, 2048, 128), 0)], [reinterpret_tensor(buf31, (8, 64, 128, 16, 16), (0, 0, 0, 0, 0), 0), reinterpret_tensor(buf32, (64, 128, 16, 16), (0, 0, 0, 0), 0), reinterpret_tensor(buf33, (128, 1, 1), (0, 0, 0), 0), reinterpret_tensor(buf34, (128, 1, 1), (0, 0, 0), 0), reinterpret_tensor(buf35, (128, 1, 1), (0, 0, 0), 0), reinterpret_tensor(buf36, (128, 1, 1), (0, 0, 0), 0)], True)
            del buf30
            del getitem_11
            del primals_12
            del tangents_3
            del view_10
            buf38 = buf37[0]
            assert_size_stride(buf38, (8, 64, 128, 16, 16), (2097152, 32768, 256, 16, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf38, 16, 'torch.ops.flexsn.backward.default')
            buf40 = buf37[2]
            assert_size_stride(buf40, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf40, 16, 'torch.ops.flexsn.backward.default')
            buf41 = buf37[3]
            assert_size_stride(buf41, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf41, 16, 'torch.ops.flexsn.backward.default')
            buf42 = buf37[4]
            assert_size_stride(buf42, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf42, 16, 'torch.ops.flexsn.backward.default')
            buf43 = buf37[5]
            assert_size_stride(buf43, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf43, 16, 'torch.ops.flexsn.backward.default')
            del buf37
            buf44 = empty_strided_cuda((1, 128, 1, 1, 1024), (131072, 1, 131072, 131072, 128), torch.float32)
            # Topologically Sorted Source Nodes: [mean_2], Original ATen: [aten.mean]
            stream0 = get_raw_stream(0)
            triton_red_fused_mean_9.run(convolution_1, buf44, 131072, 128, stream=stream0)
            buf45 = buf25; del buf25  # reuse
            # Topologically Sorted Source Nodes: [mean_2], Original ATen: [aten.mean]
            stream0 = get_raw_stream(0)
            triton_red_fused_mean_10.run(buf44, buf45, 128, 1024, stream=stream0)
            del buf44
            buf46 = convolution_1; del convolution_1  # reuse
            # Topologically Sorted Source Nodes: [view_43, view_44, pow_2, mul_13, mul_14, unsqueeze_7, unsqueeze_8, unsqueeze_9, mean_2, sub_1, mul_15, mul_16, unsqueeze_10, unsqueeze_11, unsqueeze_12, expand_16, div_2, add_14, view_45, add_15, convolution_backward_1], Original ATen: [aten.view, aten.pow, aten.mul, aten.unsqueeze, aten.mean, aten.sub, aten.expand, aten.div, aten.add, aten.convolution_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_11.run(buf46, buf41, rsqrt_1, buf45, buf40, buf38, 131072, 128, stream=stream0)
            del buf38
            del buf40
            del buf41
            del buf45
            del rsqrt_1
            # Topologically Sorted Source Nodes: [view_43, view_44, pow_2, mul_13, mul_14, unsqueeze_7, unsqueeze_8, unsqueeze_9, mean_2, sub_1, mul_15, mul_16, unsqueeze_10, unsqueeze_11, unsqueeze_12, expand_16, div_2, add_14, view_45, add_15, convolution_backward_1], Original ATen: [aten.view, aten.pow, aten.mul, aten.unsqueeze, aten.mean, aten.sub, aten.expand, aten.div, aten.add, aten.convolution_backward]
            buf47 = torch.ops.aten.convolution_backward.default(buf46, getitem_5, primals_8, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False])
            del buf46
            del getitem_5
            del primals_8
            buf48 = buf47[0]
            assert_size_stride(buf48, (512, 128, 16, 16), (32768, 1, 2048, 128), 'torch.ops.aten.convolution_backward.default')
            assert_alignment(buf48, 16, 'torch.ops.aten.convolution_backward.default')
            buf49 = buf47[1]
            assert_size_stride(buf49, (128, 128, 3, 3), (1152, 1, 384, 128), 'torch.ops.aten.convolution_backward.default')
            assert_alignment(buf49, 16, 'torch.ops.aten.convolution_backward.default')
            del buf47
            buf50 = empty_strided_cuda((512, 128, 32, 32), (131072, 1, 4096, 128), torch.float32)
            # Topologically Sorted Source Nodes: [x_1, max_pool2d_with_indices_backward_2], Original ATen: [aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_12.run(getitem_6, buf48, buf50, 67108864, stream=stream0)
            del buf48
            del getitem_6
            buf51 = buf36; del buf36  # reuse
            # Topologically Sorted Source Nodes: [empty_14], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf51, 1, stream=stream0)
            buf52 = buf35; del buf35  # reuse
            # Topologically Sorted Source Nodes: [empty_15], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf52, 1, stream=stream0)
            buf53 = buf34; del buf34  # reuse
            # Topologically Sorted Source Nodes: [empty_16], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf53, 1, stream=stream0)
            buf54 = buf33; del buf33  # reuse
            # Topologically Sorted Source Nodes: [empty_17], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf54, 1, stream=stream0)
            buf55 = buf32; del buf32  # reuse
            # Topologically Sorted Source Nodes: [empty_18], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf55, 1, stream=stream0)
            buf56 = buf31; del buf31  # reuse
            # Topologically Sorted Source Nodes: [empty_19], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf56, 1, stream=stream0)
            # Topologically Sorted Source Nodes: [view_48, expand_17, expand_18, expand_19, expand_20, expand_21, expand_22, backward_3], Original ATen: [aten.view, aten.expand, flexsn.backward]
            buf57 = torch.ops.flexsn.backward.default(5, [reinterpret_tensor(buf50, (8, 64, 128, 32, 32), (8388608, 131072, 1, 4096, 128), 0), tangents_2], [reinterpret_tensor(rsqrt, (128, 1, 1), (1, 1, 1), 0), reinterpret_tensor(primals_6, (128, 1, 1), (1, 1, 1), 0), getitem_4, view_2, reinterpret_tensor(convolution, (8, 64, 128, 32, 32), (8388608, 131072, 1, 4096, 128), 0)], [reinterpret_tensor(buf51, (8, 64, 128, 32, 32), (0, 0, 0, 0, 0), 0), reinterpret_tensor(buf52, (64, 128, 32, 32), (0, 0, 0, 0), 0), reinterpret_tensor(buf53, (128, 1, 1), (0, 0, 0), 0), reinterpret_tensor(buf54, (128, 1, 1), (0, 0, 0), 0), reinterpret_tensor(buf55, (128, 1, 1), (0, 0, 0), 0), reinterpret_tensor(buf56, (128, 1, 1), (0, 0, 0), 0)], True)
            del buf50
            del buf51
            del buf52
            del buf53
            del buf54
            del buf55
            del buf56
            del getitem_4
            del primals_6
            del tangents_2
            del view_2
            buf58 = buf57[0]
            assert_size_stride(buf58, (8, 64, 128, 32, 32), (8388608, 131072, 1024, 32, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf58, 16, 'torch.ops.flexsn.backward.default')
            buf60 = buf57[2]
            assert_size_stride(buf60, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf60, 16, 'torch.ops.flexsn.backward.default')
            buf61 = buf57[3]
            assert_size_stride(buf61, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf61, 16, 'torch.ops.flexsn.backward.default')
            buf62 = buf57[4]
            assert_size_stride(buf62, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf62, 16, 'torch.ops.flexsn.backward.default')
            buf63 = buf57[5]
            assert_size_stride(buf63, (128, 1, 1), (1, 1, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf63, 16, 'torch.ops.flexsn.backward.default')
            del buf57
            buf64 = empty_strided_cuda((1, 128, 1, 1, 1024), (131072, 1, 131072, 131072, 128), torch.float32)
            # Topologically Sorted Source Nodes: [mean_3], Original ATen: [aten.mean]
            stream0 = get_raw_stream(0)
            triton_red_fused_mean_13.run(convolution, buf64, 131072, 512, stream=stream0)
            buf65 = empty_strided_cuda((1, 128, 1, 1), (128, 1, 128, 128), torch.float32)
            # Topologically Sorted Source Nodes: [mean_3], Original ATen: [aten.mean]
            stream0 = get_raw_stream(0)
            triton_red_fused_mean_10.run(buf64, buf65, 128, 1024, stream=stream0)
            del buf64
            buf66 = convolution; del convolution  # reuse
            # Topologically Sorted Source Nodes: [view_51, view_52, pow_3, mul_17, mul_18, unsqueeze_13, unsqueeze_14, unsqueeze_15, mean_3, sub_2, mul_19, mul_20, unsqueeze_16, unsqueeze_17, unsqueeze_18, expand_23, div_3, add_16, view_53, add_17, convolution_backward_2], Original ATen: [aten.view, aten.pow, aten.mul, aten.unsqueeze, aten.mean, aten.sub, aten.expand, aten.div, aten.add, aten.convolution_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_add_convolution_backward_div_expand_mean_mul_pow_sub_unsqueeze_view_14.run(buf66, buf61, rsqrt, buf65, buf60, buf58, 524288, 128, stream=stream0)
            del buf58
            del buf60
            del buf61
            del buf65
            del rsqrt
            # Topologically Sorted Source Nodes: [view_51, view_52, pow_3, mul_17, mul_18, unsqueeze_13, unsqueeze_14, unsqueeze_15, mean_3, sub_2, mul_19, mul_20, unsqueeze_16, unsqueeze_17, unsqueeze_18, expand_23, div_3, add_16, view_53, add_17, convolution_backward_2], Original ATen: [aten.view, aten.pow, aten.mul, aten.unsqueeze, aten.mean, aten.sub, aten.expand, aten.div, aten.add, aten.convolution_backward]
            buf67 = torch.ops.aten.convolution_backward.default(buf66, view, primals_2, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, False])
            del buf66
            del primals_2
            del view
            buf68 = buf67[1]
            assert_size_stride(buf68, (128, 3, 3, 3), (27, 1, 9, 3), 'torch.ops.aten.convolution_backward.default')
            assert_alignment(buf68, 16, 'torch.ops.aten.convolution_backward.default')
            del buf67
        return (None, buf68, None, None, None, reinterpret_tensor(buf62, (128, ), (1, ), 0), reinterpret_tensor(buf63, (128, ), (1, ), 0), buf49, None, None, None, reinterpret_tensor(buf42, (128, ), (1, ), 0), reinterpret_tensor(buf43, (128, ), (1, ), 0), buf29, None, None, None, reinterpret_tensor(buf22, (128, ), (1, ), 0), reinterpret_tensor(buf23, (128, ), (1, ), 0), buf7, reinterpret_tensor(buf9, (10, ), (1, ), 0), )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_2 = rand_strided((128, 3, 3, 3), (27, 1, 9, 3), device='cuda:0', dtype=torch.float32)
    primals_6 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_8 = rand_strided((128, 128, 3, 3), (1152, 1, 384, 128), device='cuda:0', dtype=torch.float32)
    primals_12 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_14 = rand_strided((128, 128, 3, 3), (1152, 1, 384, 128), device='cuda:0', dtype=torch.float32)
    primals_18 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    primals_20 = rand_strided((10, 2048), (2048, 1), device='cuda:0', dtype=torch.float32)
    view = rand_strided((512, 3, 32, 32), (3072, 1, 96, 3), device='cuda:0', dtype=torch.float32)
    convolution = rand_strided((512, 128, 32, 32), (131072, 1, 4096, 128), device='cuda:0', dtype=torch.float32)
    rsqrt = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    view_2 = rand_strided((128, 1, 1), (1, 1, 1), device='cuda:0', dtype=torch.float32)
    getitem_4 = rand_strided((8, 64, 128, 32, 32), (8388608, 131072, 1024, 32, 1), device='cuda:0', dtype=torch.float32)
    view_6 = rand_strided((512, 128, 32, 32), (131072, 1, 4096, 128), device='cuda:0', dtype=torch.float32)
    getitem_5 = rand_strided((512, 128, 16, 16), (32768, 1, 2048, 128), device='cuda:0', dtype=torch.float32)
    getitem_6 = rand_strided((512, 128, 16, 16), (32768, 1, 2048, 128), device='cuda:0', dtype=torch.int8)
    convolution_1 = rand_strided((512, 128, 16, 16), (32768, 1, 2048, 128), device='cuda:0', dtype=torch.float32)
    rsqrt_1 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    view_10 = rand_strided((128, 1, 1), (1, 1, 1), device='cuda:0', dtype=torch.float32)
    getitem_11 = rand_strided((8, 64, 128, 16, 16), (2097152, 32768, 256, 16, 1), device='cuda:0', dtype=torch.float32)
    view_14 = rand_strided((512, 128, 16, 16), (32768, 1, 2048, 128), device='cuda:0', dtype=torch.float32)
    getitem_12 = rand_strided((512, 128, 8, 8), (8192, 1, 1024, 128), device='cuda:0', dtype=torch.float32)
    getitem_13 = rand_strided((512, 128, 8, 8), (8192, 1, 1024, 128), device='cuda:0', dtype=torch.int8)
    convolution_2 = rand_strided((512, 128, 8, 8), (8192, 1, 1024, 128), device='cuda:0', dtype=torch.float32)
    rsqrt_2 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    view_18 = rand_strided((128, 1, 1), (1, 1, 1), device='cuda:0', dtype=torch.float32)
    getitem_18 = rand_strided((8, 64, 128, 8, 8), (524288, 8192, 64, 8, 1), device='cuda:0', dtype=torch.float32)
    view_22 = rand_strided((512, 128, 8, 8), (8192, 64, 8, 1), device='cuda:0', dtype=torch.float32)
    getitem_20 = rand_strided((512, 128, 4, 4), (2048, 16, 4, 1), device='cuda:0', dtype=torch.int8)
    view_25 = rand_strided((512, 2048), (2048, 1), device='cuda:0', dtype=torch.float32)
    getitem_23 = rand_strided((8, 64, 10), (640, 10, 1), device='cuda:0', dtype=torch.float32)
    tangents_1 = rand_strided((64, 10), (10, 1), device='cuda:0', dtype=torch.float32)
    tangents_2 = rand_strided((64, 128, 32, 32), (131072, 1024, 32, 1), device='cuda:0', dtype=torch.float32)
    tangents_3 = rand_strided((64, 128, 16, 16), (32768, 256, 16, 1), device='cuda:0', dtype=torch.float32)
    tangents_4 = rand_strided((64, 128, 8, 8), (8192, 64, 8, 1), device='cuda:0', dtype=torch.float32)
    tangents_5 = rand_strided((64, 10), (10, 1), device='cuda:0', dtype=torch.float32)
    return [primals_2, primals_6, primals_8, primals_12, primals_14, primals_18, primals_20, view, convolution, rsqrt, view_2, getitem_4, view_6, getitem_5, getitem_6, convolution_1, rsqrt_1, view_10, getitem_11, view_14, getitem_12, getitem_13, convolution_2, rsqrt_2, view_18, getitem_18, view_22, getitem_20, view_25, getitem_23, tangents_1, tangents_2, tangents_3, tangents_4, tangents_5]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
