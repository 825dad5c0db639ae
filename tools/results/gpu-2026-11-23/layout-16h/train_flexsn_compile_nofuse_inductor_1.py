# AOT ID: ['5_backward']
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
# Topologically Sorted Source Nodes: [unsqueeze_12, expand, div], Original ATen: [aten.unsqueeze, aten.expand, aten.div]
# Source node to ATen node mapping:
#   div => div
#   expand => expand
#   unsqueeze_12 => unsqueeze_12
# Graph fragment:
#   %tangents_1 : Tensor "f32[64, 10][10, 1]cuda:0" = PlaceHolder[target=tangents_1]
#   %unsqueeze_12 : Tensor "f32[1, 64, 10][640, 10, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%tangents_1, 0), kwargs = {})
#   %expand : Tensor "f32[8, 64, 10][0, 10, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.expand.default](args = (%unsqueeze_12, [8, 64, 10]), kwargs = {})
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
# Topologically Sorted Source Nodes: [view_15, sum_1], Original ATen: [aten.view, aten.sum]
# Source node to ATen node mapping:
#   sum_1 => sum_1
#   view_15 => view_15
# Graph fragment:
#   %getitem_24 : Tensor "f32[8, 64, 10][640, 10, 1]cuda:0" = PlaceHolder[target=getitem_24]
#   %view_15 : Tensor "f32[512, 10][10, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_24, [512, 10]), kwargs = {})
#   %sum_1 : Tensor "f32[1, 10][10, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_15, [0], True), kwargs = {})
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
# Topologically Sorted Source Nodes: [view_15, sum_1], Original ATen: [aten.view, aten.sum]
# Source node to ATen node mapping:
#   sum_1 => sum_1
#   view_15 => view_15
# Graph fragment:
#   %buf8 : Tensor "f32[1, 10, 4][40, 1, 10]cuda:0" = PlaceHolder[target=buf8]
#   %view_15 : Tensor "f32[512, 10][10, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_24, [512, 10]), kwargs = {})
#   %sum_1 : Tensor "f32[1, 10][10, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_15, [0], True), kwargs = {})
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
# Topologically Sorted Source Nodes: [view_17, view_18, view_19, x_7, max_pool2d_with_indices_backward], Original ATen: [aten.view, aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
# Source node to ATen node mapping:
#   max_pool2d_with_indices_backward => max_pool2d_with_indices_backward
#   view_17 => view_17
#   view_18 => view_18
#   view_19 => view_19
#   x_7 => _low_memory_max_pool_offsets_to_indices_2
# Graph fragment:
#   %getitem_20 : Tensor "i8[512, 128, 4, 4][2048, 16, 4, 1]cuda:0" = PlaceHolder[target=getitem_20]
#   %mm : Tensor "f32[512, 2048][2048, 1]cuda:0" = PlaceHolder[target=mm]
#   %view_17 : Tensor "f32[8, 64, 2048][131072, 2048, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm, [8, 64, 2048]), kwargs = {})
#   %view_18 : Tensor "f32[8, 64, 128, 4, 4][131072, 2048, 16, 4, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%view_17, [8, 64, 128, 4, 4]), kwargs = {})
#   %view_19 : Tensor "f32[512, 128, 4, 4][2048, 16, 4, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%view_18, [512, 128, 4, 4]), kwargs = {})
#   %_low_memory_max_pool_offsets_to_indices_2 : Tensor "i64[512, 128, 4, 4][2048, 16, 4, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_offsets_to_indices.default](args = (%getitem_20, [2, 2], [8, 8], [2, 2], [0, 0], [1, 1]), kwargs = {})
#   %max_pool2d_with_indices_backward : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.max_pool2d_with_indices_backward.default](args = (%view_19, %view_10, [2, 2], [], [0, 0], [1, 1], False, %_low_memory_max_pool_offsets_to_indices_2), kwargs = {})
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


# kernel path: /tmp/torchinductor_root/tk/ctklab6sak2zlpdiasizxwrn5pjgdzyst6lxitgfg74k2dlkwtpi.py
# Topologically Sorted Source Nodes: [view_21, sum_2], Original ATen: [aten.view, aten.native_batch_norm_backward]
# Source node to ATen node mapping:
#   sum_2 => sum_2
#   view_21 => view_21
# Graph fragment:
#   %getitem_26 : Tensor "f32[8, 64, 128, 8, 8][524288, 8192, 64, 8, 1]cuda:0" = PlaceHolder[target=getitem_26]
#   %view_21 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_26, [512, 128, 8, 8]), kwargs = {})
#   %sum_2 : Tensor "f32[128][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_21, [0, 2, 3]), kwargs = {})
#   return %buf16
triton_red_fused_native_batch_norm_backward_view_5 = async_compile.triton('triton_red_fused_native_batch_norm_backward_view_5', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 512, 'r0_': 8192},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_native_batch_norm_backward_view_5', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 4096, 'r0_': 16777216}}
)
@triton.jit
def triton_red_fused_native_batch_norm_backward_view_5(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 512
    r0_numel = 8192
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
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
        tmp0 = tl.load(in_ptr0 + (64*x0 + 8192*(r0_2 // 64) + 1048576*x1 + ((r0_2 % 64))), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp2, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/li/cliwwkn2q5v6xhrqgf5pjzfqmtzdx6kumunm6io4jpnv3aakqj5r.py
# Topologically Sorted Source Nodes: [view_21, sum_2], Original ATen: [aten.view, aten.native_batch_norm_backward]
# Source node to ATen node mapping:
#   sum_2 => sum_2
#   view_21 => view_21
# Graph fragment:
#   %buf16 : Tensor "f32[128, 4][1, 128]cuda:0" = PlaceHolder[target=buf16]
#   %view_21 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_26, [512, 128, 8, 8]), kwargs = {})
#   %sum_2 : Tensor "f32[128][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_21, [0, 2, 3]), kwargs = {})
#   return %sum_2
triton_per_fused_native_batch_norm_backward_view_6 = async_compile.triton('triton_per_fused_native_batch_norm_backward_view_6', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 128, 'r0_': 4},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_native_batch_norm_backward_view_6', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 3072, 'r0_': 0}}
)
@triton.jit
def triton_per_fused_native_batch_norm_backward_view_6(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 128
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
    tmp0 = tl.load(in_ptr0 + (x0 + 128*r0_1), xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/hg/chgcutochosu7c3k2d3cslk6hsaiedv645dfwhmluegepl5hm7ke.py
# Topologically Sorted Source Nodes: [view_21, sub_3, mul_21, sum_3], Original ATen: [aten.view, aten.native_batch_norm_backward]
# Source node to ATen node mapping:
#   mul_21 => mul_21
#   sub_3 => sub_3
#   sum_3 => sum_3
#   view_21 => view_21
# Graph fragment:
#   %getitem_26 : Tensor "f32[8, 64, 128, 8, 8][524288, 8192, 64, 8, 1]cuda:0" = PlaceHolder[target=getitem_26]
#   %convolution_2 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0" = PlaceHolder[target=convolution_2]
#   %unsqueeze_15 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0" = PlaceHolder[target=unsqueeze_15]
#   %view_21 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_26, [512, 128, 8, 8]), kwargs = {})
#   %sub_3 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution_2, %unsqueeze_15), kwargs = {})
#   %mul_21 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_21, %sub_3), kwargs = {})
#   %sum_3 : Tensor "f32[128][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_21, [0, 2, 3]), kwargs = {})
#   return %buf18
triton_red_fused_native_batch_norm_backward_view_7 = async_compile.triton('triton_red_fused_native_batch_norm_backward_view_7', '''
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
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_native_batch_norm_backward_view_7', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 17039872, 'r0_': 16777216}}
)
@triton.jit
def triton_red_fused_native_batch_norm_backward_view_7(in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
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
    tmp2 = tl.load(in_ptr2 + (x0), None, eviction_policy='evict_last')
    _tmp6 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    x3 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (64*x0 + 8192*(r0_2 // 64) + 16384*x1 + ((r0_2 % 64))), r0_mask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.load(in_ptr1 + (x0 + 128*r0_2 + 16384*x1), r0_mask, eviction_policy='evict_first', other=0.0)
        tmp3 = tmp1 - tmp2
        tmp4 = tmp0 * tmp3
        tmp5 = tl.broadcast_to(tmp4, [XBLOCK, R0_BLOCK])
        tmp7 = _tmp6 + tmp5
        _tmp6 = tl.where(r0_mask, tmp7, _tmp6)
    tmp6 = tl.sum(_tmp6, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp6, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/e2/ce27ejq2jl36xomxpbx4oad5oehpsvtq2qqbit6gmkiqhtxwkdg3.py
# Topologically Sorted Source Nodes: [view_21, sub_3, mul_21, sum_3, mul_29], Original ATen: [aten.view, aten.native_batch_norm_backward]
# Source node to ATen node mapping:
#   mul_21 => mul_21
#   mul_29 => mul_29
#   sub_3 => sub_3
#   sum_3 => sum_3
#   view_21 => view_21
# Graph fragment:
#   %buf18 : Tensor "f32[128, 256][1, 128]cuda:0" = PlaceHolder[target=buf18]
#   %sum_3 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=sum_3]
#   %squeeze_7 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=squeeze_7]
#   %view_21 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_26, [512, 128, 8, 8]), kwargs = {})
#   %sub_3 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution_2, %unsqueeze_15), kwargs = {})
#   %mul_21 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_21, %sub_3), kwargs = {})
#   %sum_3 : Tensor "f32[128][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_21, [0, 2, 3]), kwargs = {})
#   %mul_29 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sum_3, %squeeze_7), kwargs = {})
#   return %sum_3,%mul_29
triton_red_fused_native_batch_norm_backward_view_8 = async_compile.triton('triton_red_fused_native_batch_norm_backward_view_8', '''
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
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'out_ptr1': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_native_batch_norm_backward_view_8', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 2, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 133632, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_native_batch_norm_backward_view_8(in_ptr0, in_ptr1, out_ptr0, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
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
    tmp4 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp5 = tmp2 * tmp4
    tl.store(out_ptr1 + (x0), tmp5, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/xo/cxoefeemy2dev3n3saaedd6kyi7neecyjvz3kwf3ew7pimkcgkto.py
# Topologically Sorted Source Nodes: [view_21, sub_3, mul_22, unsqueeze_16, unsqueeze_17, unsqueeze_18, mul_23, mul_24, mul_25, unsqueeze_19, unsqueeze_20, unsqueeze_21, mul_26, unsqueeze_22, unsqueeze_23, unsqueeze_24, mul_27, sub_5, sub_6, mul_28, convolution_backward], Original ATen: [aten.view, aten.native_batch_norm_backward, aten.convolution_backward]
# Source node to ATen node mapping:
#   convolution_backward => convolution_backward
#   mul_22 => mul_22
#   mul_23 => mul_23
#   mul_24 => mul_24
#   mul_25 => mul_25
#   mul_26 => mul_26
#   mul_27 => mul_27
#   mul_28 => mul_28
#   sub_3 => sub_3
#   sub_5 => sub_5
#   sub_6 => sub_6
#   unsqueeze_16 => unsqueeze_16
#   unsqueeze_17 => unsqueeze_17
#   unsqueeze_18 => unsqueeze_18
#   unsqueeze_19 => unsqueeze_19
#   unsqueeze_20 => unsqueeze_20
#   unsqueeze_21 => unsqueeze_21
#   unsqueeze_22 => unsqueeze_22
#   unsqueeze_23 => unsqueeze_23
#   unsqueeze_24 => unsqueeze_24
#   view_21 => view_21
# Graph fragment:
#   %getitem_26 : Tensor "f32[8, 64, 128, 8, 8][524288, 8192, 64, 8, 1]cuda:0" = PlaceHolder[target=getitem_26]
#   %convolution_2 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0" = PlaceHolder[target=convolution_2]
#   %unsqueeze_15 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0" = PlaceHolder[target=unsqueeze_15]
#   %sum_3 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=sum_3]
#   %squeeze_7 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=squeeze_7]
#   %sum_2 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=sum_2]
#   %primals_18 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=primals_18]
#   %view_21 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_26, [512, 128, 8, 8]), kwargs = {})
#   %sub_3 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution_2, %unsqueeze_15), kwargs = {})
#   %mul_22 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sum_2, 3.0517578125e-05), kwargs = {})
#   %unsqueeze_16 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_22, 0), kwargs = {})
#   %unsqueeze_17 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_16, 2), kwargs = {})
#   %unsqueeze_18 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_17, 3), kwargs = {})
#   %mul_23 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sum_3, 3.0517578125e-05), kwargs = {})
#   %mul_24 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%squeeze_7, %squeeze_7), kwargs = {})
#   %mul_25 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_23, %mul_24), kwargs = {})
#   %unsqueeze_19 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_25, 0), kwargs = {})
#   %unsqueeze_20 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_19, 2), kwargs = {})
#   %unsqueeze_21 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_20, 3), kwargs = {})
#   %mul_26 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%squeeze_7, %primals_18), kwargs = {})
#   %unsqueeze_22 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_26, 0), kwargs = {})
#   %unsqueeze_23 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_22, 2), kwargs = {})
#   %unsqueeze_24 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_23, 3), kwargs = {})
#   %mul_27 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub_3, %unsqueeze_21), kwargs = {})
#   %sub_5 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%view_21, %mul_27), kwargs = {})
#   %sub_6 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%sub_5, %unsqueeze_18), kwargs = {})
#   %mul_28 : Tensor "f32[512, 128, 8, 8][8192, 64, 8, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub_6, %unsqueeze_24), kwargs = {})
#   %convolution_backward : [num_users=2] = call_function[target=torch.ops.aten.convolution_backward.default](args = (%mul_28, %getitem_12, %primals_14, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False]), kwargs = {})
#   return %buf21
triton_poi_fused_convolution_backward_native_batch_norm_backward_view_9 = async_compile.triton('triton_poi_fused_convolution_backward_native_batch_norm_backward_view_9', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 65536, 'x': 64}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'in_ptr5': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2DWithYZOverflow', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_convolution_backward_native_batch_norm_backward_view_9', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 7, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 16779776, 'x': 50331648}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_convolution_backward_native_batch_norm_backward_view_9(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 65536
    xnumel = 64
    yoffset = (tl.program_id(1) + tl.program_id(2) * tl.num_programs(1)) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = (yindex % 128)
    y1 = yindex // 128
    tmp0 = tl.load(in_out_ptr0 + (x2 + 64*y3), xmask & ymask, eviction_policy='evict_last')
    tmp1 = tl.load(in_ptr0 + (y0 + 128*x2 + 8192*y1), xmask & ymask, eviction_policy='evict_last')
    tmp2 = tl.load(in_ptr1 + (y0), ymask, eviction_policy='evict_last')
    tmp4 = tl.load(in_ptr2 + (y0), ymask, eviction_policy='evict_last')
    tmp7 = tl.load(in_ptr3 + (y0), ymask, eviction_policy='evict_last')
    tmp12 = tl.load(in_ptr4 + (y0), ymask, eviction_policy='evict_last')
    tmp15 = tl.load(in_ptr5 + (y0), ymask, eviction_policy='evict_last')
    tmp3 = tmp1 - tmp2
    tmp5 = tl.full([1, 1], 3.0517578125e-05, tl.float32)
    tmp6 = tmp4 * tmp5
    tmp8 = tmp7 * tmp7
    tmp9 = tmp6 * tmp8
    tmp10 = tmp3 * tmp9
    tmp11 = tmp0 - tmp10
    tmp13 = tmp12 * tmp5
    tmp14 = tmp11 - tmp13
    tmp16 = tmp7 * tmp15
    tmp17 = tmp14 * tmp16
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x2 + 64*y3), tmp17, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/ue/cue6isq4blyr2ntjitm3lvfupx3ipccrbe65kpc6zm3wyls2jh3m.py
# Topologically Sorted Source Nodes: [x_4, max_pool2d_with_indices_backward_1], Original ATen: [aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
# Source node to ATen node mapping:
#   max_pool2d_with_indices_backward_1 => max_pool2d_with_indices_backward_1
#   x_4 => _low_memory_max_pool_offsets_to_indices_1
# Graph fragment:
#   %getitem_13 : Tensor "i8[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0" = PlaceHolder[target=getitem_13]
#   %getitem_28 : Tensor "f32[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0" = PlaceHolder[target=getitem_28]
#   %_low_memory_max_pool_offsets_to_indices_1 : Tensor "i64[512, 128, 8, 8][8192, 1, 1024, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_offsets_to_indices.default](args = (%getitem_13, [2, 2], [16, 16], [2, 2], [0, 0], [1, 1]), kwargs = {})
#   %max_pool2d_with_indices_backward_1 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.max_pool2d_with_indices_backward.default](args = (%getitem_28, %view_6, [2, 2], [], [0, 0], [1, 1], False, %_low_memory_max_pool_offsets_to_indices_1), kwargs = {})
#   return %max_pool2d_with_indices_backward_1
triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_10 = async_compile.triton('triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_10', '''
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
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_10', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 155189248}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_10(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
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


# kernel path: /tmp/torchinductor_root/ll/cllvnyanzddmwwzcjlzzhtqqegrorz426u6vvtdjqimwmscde5yu.py
# Topologically Sorted Source Nodes: [view_25, sum_4], Original ATen: [aten.view, aten.native_batch_norm_backward]
# Source node to ATen node mapping:
#   sum_4 => sum_4
#   view_25 => view_25
# Graph fragment:
#   %getitem_31 : Tensor "f32[8, 64, 128, 16, 16][2097152, 32768, 256, 16, 1]cuda:0" = PlaceHolder[target=getitem_31]
#   %view_25 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_31, [512, 128, 16, 16]), kwargs = {})
#   %sum_4 : Tensor "f32[128][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_25, [0, 2, 3]), kwargs = {})
#   return %buf31
triton_red_fused_native_batch_norm_backward_view_11 = async_compile.triton('triton_red_fused_native_batch_norm_backward_view_11', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 512, 'r0_': 32768},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_native_batch_norm_backward_view_11', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 4096, 'r0_': 67108864}}
)
@triton.jit
def triton_red_fused_native_batch_norm_backward_view_11(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 512
    r0_numel = 32768
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
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
        tmp0 = tl.load(in_ptr0 + (256*x0 + 32768*(r0_2 // 256) + 4194304*x1 + ((r0_2 % 256))), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp2, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/5w/c5wpidqyty67beg4drnq4g4ieoilplycqnnc5p6b5rlzsnx5xpun.py
# Topologically Sorted Source Nodes: [view_25, sub_7, mul_30, sum_5], Original ATen: [aten.view, aten.native_batch_norm_backward]
# Source node to ATen node mapping:
#   mul_30 => mul_30
#   sub_7 => sub_7
#   sum_5 => sum_5
#   view_25 => view_25
# Graph fragment:
#   %getitem_31 : Tensor "f32[8, 64, 128, 16, 16][2097152, 32768, 256, 16, 1]cuda:0" = PlaceHolder[target=getitem_31]
#   %convolution_1 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0" = PlaceHolder[target=convolution_1]
#   %unsqueeze_27 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0" = PlaceHolder[target=unsqueeze_27]
#   %view_25 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_31, [512, 128, 16, 16]), kwargs = {})
#   %sub_7 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution_1, %unsqueeze_27), kwargs = {})
#   %mul_30 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_25, %sub_7), kwargs = {})
#   %sum_5 : Tensor "f32[128][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_30, [0, 2, 3]), kwargs = {})
#   return %buf33
triton_red_fused_native_batch_norm_backward_view_12 = async_compile.triton('triton_red_fused_native_batch_norm_backward_view_12', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'y': 128, 'x': 1024, 'r0_': 128},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'out_ptr0': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'r0_numel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_native_batch_norm_backward_view_12', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 67109376, 'x': 1048576, 'r0_': 67108864}}
)
@triton.jit
def triton_red_fused_native_batch_norm_backward_view_12(in_ptr0, in_ptr1, in_ptr2, out_ptr0, ynumel, xnumel, r0_numel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    ynumel = 128
    xnumel = 1024
    r0_numel = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, None, :]
    rbase = r0_base
    x1 = xindex
    y0 = yindex
    tmp2 = tl.load(in_ptr2 + (y0), ymask, eviction_policy='evict_last')
    _tmp6 = tl.full([YBLOCK, XBLOCK, R0_BLOCK], 0, tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (16*((((r0_2 + 128*x1) // 16) % 16)) + 256*y0 + 32768*((r0_2 + 128*x1) // 256) + ((r0_2 % 16))), r0_mask & xmask & ymask, eviction_policy='evict_last', other=0.0)
        tmp1 = tl.load(in_ptr1 + (y0 + 128*r0_2 + 16384*x1), r0_mask & xmask & ymask, eviction_policy='evict_last', other=0.0)
        tmp3 = tmp1 - tmp2
        tmp4 = tmp0 * tmp3
        tmp5 = tl.broadcast_to(tmp4, [YBLOCK, XBLOCK, R0_BLOCK])
        tmp7 = _tmp6 + tmp5
        _tmp6 = tl.where(r0_mask & xmask & ymask, tmp7, _tmp6)
    tmp6 = tl.sum(_tmp6, 2)[:, :, None]
    tl.store(out_ptr0 + (x1 + 1024*y0), tmp6, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/cb/ccbnlonano73r3pa7vk57ku4yyusqbdneiercjhjiwmxbtmeanhx.py
# Topologically Sorted Source Nodes: [view_25, sub_7, mul_30, sum_5, mul_38], Original ATen: [aten.view, aten.native_batch_norm_backward]
# Source node to ATen node mapping:
#   mul_30 => mul_30
#   mul_38 => mul_38
#   sub_7 => sub_7
#   sum_5 => sum_5
#   view_25 => view_25
# Graph fragment:
#   %buf33 : Tensor "f32[128, 1024][1024, 1]cuda:0" = PlaceHolder[target=buf33]
#   %sum_5 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=sum_5]
#   %squeeze_4 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=squeeze_4]
#   %view_25 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_31, [512, 128, 16, 16]), kwargs = {})
#   %sub_7 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution_1, %unsqueeze_27), kwargs = {})
#   %mul_30 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_25, %sub_7), kwargs = {})
#   %sum_5 : Tensor "f32[128][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_30, [0, 2, 3]), kwargs = {})
#   %mul_38 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sum_5, %squeeze_4), kwargs = {})
#   return %sum_5,%mul_38
triton_per_fused_native_batch_norm_backward_view_13 = async_compile.triton('triton_per_fused_native_batch_norm_backward_view_13', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 128, 'r0_': 1024},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'out_ptr1': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_native_batch_norm_backward_view_13', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 2, 'num_store': 2, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 2560, 'r0_': 524288}}
)
@triton.jit
def triton_per_fused_native_batch_norm_backward_view_13(in_ptr0, in_ptr1, out_ptr0, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 128
    r0_numel = 1024
    R0_BLOCK: tl.constexpr = 1024
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
    tmp0 = tl.load(in_ptr0 + (r0_1 + 1024*x0), xmask, other=0.0)
    tmp5 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tmp6 = tmp4 * tmp5
    tl.store(out_ptr1 + (x0), tmp6, xmask)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/yx/cyxv7srtqombafai52rsm3slvjmeiyv4gkntoihgibgebafvtqtq.py
# Topologically Sorted Source Nodes: [view_25, sub_7, mul_31, unsqueeze_28, unsqueeze_29, unsqueeze_30, mul_32, mul_33, mul_34, unsqueeze_31, unsqueeze_32, unsqueeze_33, mul_35, unsqueeze_34, unsqueeze_35, unsqueeze_36, mul_36, sub_9, sub_10, mul_37, convolution_backward_1], Original ATen: [aten.view, aten.native_batch_norm_backward, aten.convolution_backward]
# Source node to ATen node mapping:
#   convolution_backward_1 => convolution_backward_1
#   mul_31 => mul_31
#   mul_32 => mul_32
#   mul_33 => mul_33
#   mul_34 => mul_34
#   mul_35 => mul_35
#   mul_36 => mul_36
#   mul_37 => mul_37
#   sub_10 => sub_10
#   sub_7 => sub_7
#   sub_9 => sub_9
#   unsqueeze_28 => unsqueeze_28
#   unsqueeze_29 => unsqueeze_29
#   unsqueeze_30 => unsqueeze_30
#   unsqueeze_31 => unsqueeze_31
#   unsqueeze_32 => unsqueeze_32
#   unsqueeze_33 => unsqueeze_33
#   unsqueeze_34 => unsqueeze_34
#   unsqueeze_35 => unsqueeze_35
#   unsqueeze_36 => unsqueeze_36
#   view_25 => view_25
# Graph fragment:
#   %getitem_31 : Tensor "f32[8, 64, 128, 16, 16][2097152, 32768, 256, 16, 1]cuda:0" = PlaceHolder[target=getitem_31]
#   %convolution_1 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0" = PlaceHolder[target=convolution_1]
#   %unsqueeze_27 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0" = PlaceHolder[target=unsqueeze_27]
#   %sum_5 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=sum_5]
#   %squeeze_4 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=squeeze_4]
#   %sum_4 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=sum_4]
#   %primals_12 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=primals_12]
#   %view_25 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_31, [512, 128, 16, 16]), kwargs = {})
#   %sub_7 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution_1, %unsqueeze_27), kwargs = {})
#   %mul_31 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sum_4, 7.62939453125e-06), kwargs = {})
#   %unsqueeze_28 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_31, 0), kwargs = {})
#   %unsqueeze_29 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_28, 2), kwargs = {})
#   %unsqueeze_30 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_29, 3), kwargs = {})
#   %mul_32 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sum_5, 7.62939453125e-06), kwargs = {})
#   %mul_33 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%squeeze_4, %squeeze_4), kwargs = {})
#   %mul_34 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_32, %mul_33), kwargs = {})
#   %unsqueeze_31 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_34, 0), kwargs = {})
#   %unsqueeze_32 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_31, 2), kwargs = {})
#   %unsqueeze_33 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_32, 3), kwargs = {})
#   %mul_35 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%squeeze_4, %primals_12), kwargs = {})
#   %unsqueeze_34 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_35, 0), kwargs = {})
#   %unsqueeze_35 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_34, 2), kwargs = {})
#   %unsqueeze_36 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_35, 3), kwargs = {})
#   %mul_36 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub_7, %unsqueeze_33), kwargs = {})
#   %sub_9 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%view_25, %mul_36), kwargs = {})
#   %sub_10 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%sub_9, %unsqueeze_30), kwargs = {})
#   %mul_37 : Tensor "f32[512, 128, 16, 16][32768, 256, 16, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub_10, %unsqueeze_36), kwargs = {})
#   %convolution_backward_1 : [num_users=2] = call_function[target=torch.ops.aten.convolution_backward.default](args = (%mul_37, %getitem_5, %primals_8, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False]), kwargs = {})
#   return %buf36
triton_poi_fused_convolution_backward_native_batch_norm_backward_view_14 = async_compile.triton('triton_poi_fused_convolution_backward_native_batch_norm_backward_view_14', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 65536, 'x': 256}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'in_ptr5': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2DWithYZOverflow', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_convolution_backward_native_batch_norm_backward_view_14', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 7, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 67111424, 'x': 201326592}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_convolution_backward_native_batch_norm_backward_view_14(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 65536
    xnumel = 256
    yoffset = (tl.program_id(1) + tl.program_id(2) * tl.num_programs(1)) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = (yindex % 128)
    y1 = yindex // 128
    tmp0 = tl.load(in_out_ptr0 + (x2 + 256*y3), xmask & ymask, eviction_policy='evict_last')
    tmp1 = tl.load(in_ptr0 + (y0 + 128*x2 + 32768*y1), xmask & ymask, eviction_policy='evict_last')
    tmp2 = tl.load(in_ptr1 + (y0), ymask, eviction_policy='evict_last')
    tmp4 = tl.load(in_ptr2 + (y0), ymask, eviction_policy='evict_last')
    tmp7 = tl.load(in_ptr3 + (y0), ymask, eviction_policy='evict_last')
    tmp12 = tl.load(in_ptr4 + (y0), ymask, eviction_policy='evict_last')
    tmp15 = tl.load(in_ptr5 + (y0), ymask, eviction_policy='evict_last')
    tmp3 = tmp1 - tmp2
    tmp5 = tl.full([1, 1], 7.62939453125e-06, tl.float32)
    tmp6 = tmp4 * tmp5
    tmp8 = tmp7 * tmp7
    tmp9 = tmp6 * tmp8
    tmp10 = tmp3 * tmp9
    tmp11 = tmp0 - tmp10
    tmp13 = tmp12 * tmp5
    tmp14 = tmp11 - tmp13
    tmp16 = tmp7 * tmp15
    tmp17 = tmp14 * tmp16
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x2 + 256*y3), tmp17, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/ce/cceixlnq546wbvecrvxcsugezjc57asijp4ga4jxvjion3due6m5.py
# Topologically Sorted Source Nodes: [x_1, max_pool2d_with_indices_backward_2], Original ATen: [aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
# Source node to ATen node mapping:
#   max_pool2d_with_indices_backward_2 => max_pool2d_with_indices_backward_2
#   x_1 => _low_memory_max_pool_offsets_to_indices
# Graph fragment:
#   %getitem_6 : Tensor "i8[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0" = PlaceHolder[target=getitem_6]
#   %getitem_33 : Tensor "f32[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0" = PlaceHolder[target=getitem_33]
#   %_low_memory_max_pool_offsets_to_indices : Tensor "i64[512, 128, 16, 16][32768, 1, 2048, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.prims._low_memory_max_pool_offsets_to_indices.default](args = (%getitem_6, [2, 2], [32, 32], [2, 2], [0, 0], [1, 1]), kwargs = {})
#   %max_pool2d_with_indices_backward_2 : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.max_pool2d_with_indices_backward.default](args = (%getitem_33, %view_2, [2, 2], [], [0, 0], [1, 1], False, %_low_memory_max_pool_offsets_to_indices), kwargs = {})
#   return %max_pool2d_with_indices_backward_2
triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_15 = async_compile.triton('triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_15', '''
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
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_15', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 620756992}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_15(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
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


# kernel path: /tmp/torchinductor_root/am/cami4ityetybpoaph5jjv53fotuwqni6zpr3z3bh7i7liks2fiuz.py
# Topologically Sorted Source Nodes: [view_29, sum_6], Original ATen: [aten.view, aten.native_batch_norm_backward]
# Source node to ATen node mapping:
#   sum_6 => sum_6
#   view_29 => view_29
# Graph fragment:
#   %getitem_36 : Tensor "f32[8, 64, 128, 32, 32][8388608, 131072, 1024, 32, 1]cuda:0" = PlaceHolder[target=getitem_36]
#   %view_29 : Tensor "f32[512, 128, 32, 32][131072, 1024, 32, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_36, [512, 128, 32, 32]), kwargs = {})
#   %sum_6 : Tensor "f32[128][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_29, [0, 2, 3]), kwargs = {})
#   return %buf46
triton_red_fused_native_batch_norm_backward_view_16 = async_compile.triton('triton_red_fused_native_batch_norm_backward_view_16', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 1024, 'r0_': 131072},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_native_batch_norm_backward_view_16', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 5120, 'r0_': 268435456}}
)
@triton.jit
def triton_red_fused_native_batch_norm_backward_view_16(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 640
    r0_numel = 104858
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x1 = xindex // 128
    x0 = (xindex % 128)
    _tmp5 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    x3 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = r0_2 + 104858*x1
        tmp1 = tl.full([1, 1], 524288, tl.int32)
        tmp2 = tmp0 < tmp1
        tmp3 = tl.load(in_ptr0 + (1024*x0 + 131072*((((r0_2 + 104858*x1) // 1024) % 512)) + (((r0_2 + 104858*x1) % 1024))), r0_mask & tmp2 & xmask, eviction_policy='evict_last', other=0.0)
        tmp4 = tl.broadcast_to(tmp3, [XBLOCK, R0_BLOCK])
        tmp6 = _tmp5 + tmp4
        _tmp5 = tl.where(r0_mask & xmask, tmp6, _tmp5)
    tmp5 = tl.sum(_tmp5, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp5, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/m5/cm53ugwr32boaqtfyhninw3jselnmdr5mrhejc3m3y34e6xum3xj.py
# Topologically Sorted Source Nodes: [view_29, sum_6], Original ATen: [aten.view, aten.native_batch_norm_backward]
# Source node to ATen node mapping:
#   sum_6 => sum_6
#   view_29 => view_29
# Graph fragment:
#   %buf46 : Tensor "f32[128, 5][1, 128]cuda:0" = PlaceHolder[target=buf46]
#   %view_29 : Tensor "f32[512, 128, 32, 32][131072, 1024, 32, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_36, [512, 128, 32, 32]), kwargs = {})
#   %sum_6 : Tensor "f32[128][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%view_29, [0, 2, 3]), kwargs = {})
#   return %sum_6
triton_per_fused_native_batch_norm_backward_view_17 = async_compile.triton('triton_per_fused_native_batch_norm_backward_view_17', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 128, 'r0_': 8},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_native_batch_norm_backward_view_17', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 3584, 'r0_': 0}}
)
@triton.jit
def triton_per_fused_native_batch_norm_backward_view_17(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 128
    r0_numel = 5
    R0_BLOCK: tl.constexpr = 8
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = r0_index < r0_numel
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 128*r0_1), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/bu/cbu4dzkcvf3d2gwzav3zyl2np2elvgbp5kheqfiteipgvp36orh4.py
# Topologically Sorted Source Nodes: [view_29, sub_11, mul_39, sum_7], Original ATen: [aten.view, aten.native_batch_norm_backward]
# Source node to ATen node mapping:
#   mul_39 => mul_39
#   sub_11 => sub_11
#   sum_7 => sum_7
#   view_29 => view_29
# Graph fragment:
#   %getitem_36 : Tensor "f32[8, 64, 128, 32, 32][8388608, 131072, 1024, 32, 1]cuda:0" = PlaceHolder[target=getitem_36]
#   %convolution : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0" = PlaceHolder[target=convolution]
#   %unsqueeze_39 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0" = PlaceHolder[target=unsqueeze_39]
#   %view_29 : Tensor "f32[512, 128, 32, 32][131072, 1024, 32, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_36, [512, 128, 32, 32]), kwargs = {})
#   %sub_11 : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution, %unsqueeze_39), kwargs = {})
#   %mul_39 : Tensor "f32[512, 128, 32, 32][131072, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_29, %sub_11), kwargs = {})
#   %sum_7 : Tensor "f32[128][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_39, [0, 2, 3]), kwargs = {})
#   return %buf48
triton_red_fused_native_batch_norm_backward_view_18 = async_compile.triton('triton_red_fused_native_batch_norm_backward_view_18', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'y': 128, 'x': 1024, 'r0_': 512},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'out_ptr0': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'r0_numel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_native_batch_norm_backward_view_18', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 268435968, 'x': 1048576, 'r0_': 268435456}}
)
@triton.jit
def triton_red_fused_native_batch_norm_backward_view_18(in_ptr0, in_ptr1, in_ptr2, out_ptr0, ynumel, xnumel, r0_numel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    ynumel = 128
    xnumel = 1024
    r0_numel = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, None, :]
    rbase = r0_base
    x1 = xindex
    y0 = yindex
    tmp2 = tl.load(in_ptr2 + (y0), ymask, eviction_policy='evict_last')
    _tmp6 = tl.full([YBLOCK, XBLOCK, R0_BLOCK], 0, tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (32*((((r0_2 + 512*x1) // 32) % 32)) + 1024*y0 + 131072*((r0_2 + 512*x1) // 1024) + ((r0_2 % 32))), r0_mask & xmask & ymask, eviction_policy='evict_last', other=0.0)
        tmp1 = tl.load(in_ptr1 + (y0 + 128*r0_2 + 65536*x1), r0_mask & xmask & ymask, eviction_policy='evict_last', other=0.0)
        tmp3 = tmp1 - tmp2
        tmp4 = tmp0 * tmp3
        tmp5 = tl.broadcast_to(tmp4, [YBLOCK, XBLOCK, R0_BLOCK])
        tmp7 = _tmp6 + tmp5
        _tmp6 = tl.where(r0_mask & xmask & ymask, tmp7, _tmp6)
    tmp6 = tl.sum(_tmp6, 2)[:, :, None]
    tl.store(out_ptr0 + (x1 + 1024*y0), tmp6, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/wf/cwflwyw525fcgey6n5pimbe34dy4fg36z4cvalgzjelwkxkn7u4h.py
# Topologically Sorted Source Nodes: [view_29, sub_11, mul_40, unsqueeze_40, unsqueeze_41, unsqueeze_42, mul_41, mul_42, mul_43, unsqueeze_43, unsqueeze_44, unsqueeze_45, mul_44, unsqueeze_46, unsqueeze_47, unsqueeze_48, mul_45, sub_13, sub_14, mul_46, convolution_backward_2], Original ATen: [aten.view, aten.native_batch_norm_backward, aten.convolution_backward]
# Source node to ATen node mapping:
#   convolution_backward_2 => convolution_backward_2
#   mul_40 => mul_40
#   mul_41 => mul_41
#   mul_42 => mul_42
#   mul_43 => mul_43
#   mul_44 => mul_44
#   mul_45 => mul_45
#   mul_46 => mul_46
#   sub_11 => sub_11
#   sub_13 => sub_13
#   sub_14 => sub_14
#   unsqueeze_40 => unsqueeze_40
#   unsqueeze_41 => unsqueeze_41
#   unsqueeze_42 => unsqueeze_42
#   unsqueeze_43 => unsqueeze_43
#   unsqueeze_44 => unsqueeze_44
#   unsqueeze_45 => unsqueeze_45
#   unsqueeze_46 => unsqueeze_46
#   unsqueeze_47 => unsqueeze_47
#   unsqueeze_48 => unsqueeze_48
#   view_29 => view_29
# Graph fragment:
#   %getitem_36 : Tensor "f32[8, 64, 128, 32, 32][8388608, 131072, 1024, 32, 1]cuda:0" = PlaceHolder[target=getitem_36]
#   %convolution : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0" = PlaceHolder[target=convolution]
#   %unsqueeze_39 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0" = PlaceHolder[target=unsqueeze_39]
#   %sum_7 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=sum_7]
#   %squeeze_1 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=squeeze_1]
#   %sum_6 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=sum_6]
#   %primals_6 : Tensor "f32[128][1]cuda:0" = PlaceHolder[target=primals_6]
#   %view_29 : Tensor "f32[512, 128, 32, 32][131072, 1024, 32, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.reshape.default](args = (%getitem_36, [512, 128, 32, 32]), kwargs = {})
#   %sub_11 : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.sub.Tensor](args = (%convolution, %unsqueeze_39), kwargs = {})
#   %mul_40 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sum_6, 1.9073486328125e-06), kwargs = {})
#   %unsqueeze_40 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_40, 0), kwargs = {})
#   %unsqueeze_41 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_40, 2), kwargs = {})
#   %unsqueeze_42 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_41, 3), kwargs = {})
#   %mul_41 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sum_7, 1.9073486328125e-06), kwargs = {})
#   %mul_42 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%squeeze_1, %squeeze_1), kwargs = {})
#   %mul_43 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_41, %mul_42), kwargs = {})
#   %unsqueeze_43 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_43, 0), kwargs = {})
#   %unsqueeze_44 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_43, 2), kwargs = {})
#   %unsqueeze_45 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_44, 3), kwargs = {})
#   %mul_44 : Tensor "f32[128][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%squeeze_1, %primals_6), kwargs = {})
#   %unsqueeze_46 : Tensor "f32[1, 128][128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%mul_44, 0), kwargs = {})
#   %unsqueeze_47 : Tensor "f32[1, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_46, 2), kwargs = {})
#   %unsqueeze_48 : Tensor "f32[1, 128, 1, 1][128, 1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%unsqueeze_47, 3), kwargs = {})
#   %mul_45 : Tensor "f32[512, 128, 32, 32][131072, 1, 4096, 128]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub_11, %unsqueeze_45), kwargs = {})
#   %sub_13 : Tensor "f32[512, 128, 32, 32][131072, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%view_29, %mul_45), kwargs = {})
#   %sub_14 : Tensor "f32[512, 128, 32, 32][131072, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%sub_13, %unsqueeze_42), kwargs = {})
#   %mul_46 : Tensor "f32[512, 128, 32, 32][131072, 1024, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sub_14, %unsqueeze_48), kwargs = {})
#   %convolution_backward_2 : [num_users=1] = call_function[target=torch.ops.aten.convolution_backward.default](args = (%mul_46, %view, %primals_2, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, False]), kwargs = {})
#   return %buf51
triton_poi_fused_convolution_backward_native_batch_norm_backward_view_19 = async_compile.triton('triton_poi_fused_convolution_backward_native_batch_norm_backward_view_19', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 65536, 'x': 1024}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'in_ptr5': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2DWithYZOverflow', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_convolution_backward_native_batch_norm_backward_view_19', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 7, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 268438016, 'x': 805306368}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_convolution_backward_native_batch_norm_backward_view_19(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 65536
    xnumel = 1024
    yoffset = (tl.program_id(1) + tl.program_id(2) * tl.num_programs(1)) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y3 = yindex
    y0 = (yindex % 128)
    y1 = yindex // 128
    tmp0 = tl.load(in_out_ptr0 + (x2 + 1024*y3), xmask & ymask, eviction_policy='evict_last')
    tmp1 = tl.load(in_ptr0 + (y0 + 128*x2 + 131072*y1), xmask & ymask, eviction_policy='evict_last')
    tmp2 = tl.load(in_ptr1 + (y0), ymask, eviction_policy='evict_last')
    tmp4 = tl.load(in_ptr2 + (y0), ymask, eviction_policy='evict_last')
    tmp7 = tl.load(in_ptr3 + (y0), ymask, eviction_policy='evict_last')
    tmp12 = tl.load(in_ptr4 + (y0), ymask, eviction_policy='evict_last')
    tmp15 = tl.load(in_ptr5 + (y0), ymask, eviction_policy='evict_last')
    tmp3 = tmp1 - tmp2
    tmp5 = tl.full([1, 1], 1.9073486328125e-06, tl.float32)
    tmp6 = tmp4 * tmp5
    tmp8 = tmp7 * tmp7
    tmp9 = tmp6 * tmp8
    tmp10 = tmp3 * tmp9
    tmp11 = tmp0 - tmp10
    tmp13 = tmp12 * tmp5
    tmp14 = tmp11 - tmp13
    tmp16 = tmp7 * tmp15
    tmp17 = tmp14 * tmp16
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x2 + 1024*y3), tmp17, xmask & ymask)
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
        primals_2, primals_6, primals_8, primals_12, primals_14, primals_18, primals_20, view, convolution, squeeze_1, getitem_4, view_2, getitem_5, getitem_6, convolution_1, squeeze_4, getitem_11, view_6, getitem_12, getitem_13, convolution_2, squeeze_7, getitem_18, view_10, getitem_20, view_13, getitem_23, unsqueeze_15, unsqueeze_27, unsqueeze_39, tangents_1, tangents_2, tangents_3, tangents_4, tangents_5 = args
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
        assert_size_stride(squeeze_1, (128, ), (1, ))
        assert_size_stride(getitem_4, (8, 64, 128, 32, 32), (8388608, 131072, 1024, 32, 1))
        assert_size_stride(view_2, (512, 128, 32, 32), (131072, 1, 4096, 128))
        assert_size_stride(getitem_5, (512, 128, 16, 16), (32768, 1, 2048, 128))
        assert_size_stride(getitem_6, (512, 128, 16, 16), (32768, 1, 2048, 128))
        assert_size_stride(convolution_1, (512, 128, 16, 16), (32768, 1, 2048, 128))
        assert_size_stride(squeeze_4, (128, ), (1, ))
        assert_size_stride(getitem_11, (8, 64, 128, 16, 16), (2097152, 32768, 256, 16, 1))
        assert_size_stride(view_6, (512, 128, 16, 16), (32768, 1, 2048, 128))
        assert_size_stride(getitem_12, (512, 128, 8, 8), (8192, 1, 1024, 128))
        assert_size_stride(getitem_13, (512, 128, 8, 8), (8192, 1, 1024, 128))
        assert_size_stride(convolution_2, (512, 128, 8, 8), (8192, 1, 1024, 128))
        assert_size_stride(squeeze_7, (128, ), (1, ))
        assert_size_stride(getitem_18, (8, 64, 128, 8, 8), (524288, 8192, 64, 8, 1))
        assert_size_stride(view_10, (512, 128, 8, 8), (8192, 64, 8, 1))
        assert_size_stride(getitem_20, (512, 128, 4, 4), (2048, 16, 4, 1))
        assert_size_stride(view_13, (512, 2048), (2048, 1))
        assert_size_stride(getitem_23, (8, 64, 10), (640, 10, 1))
        assert_size_stride(unsqueeze_15, (1, 128, 1, 1), (128, 1, 1, 1))
        assert_size_stride(unsqueeze_27, (1, 128, 1, 1), (128, 1, 1, 1))
        assert_size_stride(unsqueeze_39, (1, 128, 1, 1), (128, 1, 1, 1))
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
            # Topologically Sorted Source Nodes: [unsqueeze_12, expand, div], Original ATen: [aten.unsqueeze, aten.expand, aten.div]
            stream0 = get_raw_stream(0)
            triton_poi_fused_div_expand_unsqueeze_1.run(tangents_1, buf2, 5120, stream=stream0)
            del tangents_1
            # Topologically Sorted Source Nodes: [unsqueeze_12, expand, div, expand_1, expand_2, backward], Original ATen: [aten.unsqueeze, aten.expand, aten.div, flexsn.backward]
            buf3 = torch.ops.flexsn.backward.default(11, [buf2, tangents_5], [getitem_23], [reinterpret_tensor(buf0, (8, 64, 10), (0, 0, 0), 0), reinterpret_tensor(buf1, (64, 10), (0, 0), 0)], True)
            del buf2
            del getitem_23
            del tangents_5
            buf4 = buf3[0]
            assert_size_stride(buf4, (8, 64, 10), (640, 10, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf4, 16, 'torch.ops.flexsn.backward.default')
            del buf3
            buf6 = empty_strided_cuda((512, 2048), (2048, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_15, x_9, permute_1, mm], Original ATen: [aten.view, aten.t, aten.mm]
            extern_kernels.mm(reinterpret_tensor(buf4, (512, 10), (10, 1), 0), primals_20, out=buf6)
            del primals_20
            buf7 = empty_strided_cuda((10, 2048), (2048, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_15, permute_2, mm_1], Original ATen: [aten.view, aten.t, aten.mm]
            extern_kernels.mm(reinterpret_tensor(buf4, (10, 512), (1, 10), 0), view_13, out=buf7)
            del view_13
            buf8 = empty_strided_cuda((1, 10, 4), (40, 1, 10), torch.float32)
            # Topologically Sorted Source Nodes: [view_15, sum_1], Original ATen: [aten.view, aten.sum]
            stream0 = get_raw_stream(0)
            triton_red_fused_sum_view_2.run(buf4, buf8, 40, 128, stream=stream0)
            del buf4
            buf9 = empty_strided_cuda((1, 10), (10, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_15, sum_1], Original ATen: [aten.view, aten.sum]
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
            buf12 = empty_strided_cuda((512, 128, 8, 8), (8192, 64, 8, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_17, view_18, view_19, x_7, max_pool2d_with_indices_backward], Original ATen: [aten.view, aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_view_4.run(getitem_20, buf6, buf12, 524288, 8, stream=stream0)
            del buf6
            del getitem_20
            # Topologically Sorted Source Nodes: [view_17, view_18, view_19, x_7, max_pool2d_with_indices_backward, view_20, expand_3, expand_4, backward_1], Original ATen: [aten.view, aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward, aten.expand, flexsn.backward]
            buf13 = torch.ops.flexsn.backward.default(10, [reinterpret_tensor(buf12, (8, 64, 128, 8, 8), (524288, 8192, 64, 8, 1), 0), tangents_4], [getitem_18], [reinterpret_tensor(buf10, (8, 64, 128, 8, 8), (0, 0, 0, 0, 0), 0), reinterpret_tensor(buf11, (64, 128, 8, 8), (0, 0, 0, 0), 0)], True)
            del buf12
            del getitem_18
            del tangents_4
            buf14 = buf13[0]
            assert_size_stride(buf14, (8, 64, 128, 8, 8), (524288, 8192, 64, 8, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf14, 16, 'torch.ops.flexsn.backward.default')
            del buf13
            buf16 = empty_strided_cuda((128, 4), (1, 128), torch.float32)
            # Topologically Sorted Source Nodes: [view_21, sum_2], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_red_fused_native_batch_norm_backward_view_5.run(buf14, buf16, 512, 8192, stream=stream0)
            buf17 = empty_strided_cuda((128, ), (1, ), torch.float32)
            # Topologically Sorted Source Nodes: [view_21, sum_2], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_per_fused_native_batch_norm_backward_view_6.run(buf16, buf17, 128, 4, stream=stream0)
            buf18 = empty_strided_cuda((128, 256), (1, 128), torch.float32)
            # Topologically Sorted Source Nodes: [view_21, sub_3, mul_21, sum_3], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_red_fused_native_batch_norm_backward_view_7.run(buf14, convolution_2, unsqueeze_15, buf18, 32768, 128, stream=stream0)
            buf19 = empty_strided_cuda((128, ), (1, ), torch.float32)
            buf20 = empty_strided_cuda((128, ), (1, ), torch.float32)
            # Topologically Sorted Source Nodes: [view_21, sub_3, mul_21, sum_3, mul_29], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_red_fused_native_batch_norm_backward_view_8.run(buf18, squeeze_7, buf19, buf20, 128, 256, stream=stream0)
            del buf18
            buf21 = reinterpret_tensor(buf14, (512, 128, 8, 8), (8192, 64, 8, 1), 0); del buf14  # reuse
            # Topologically Sorted Source Nodes: [view_21, sub_3, mul_22, unsqueeze_16, unsqueeze_17, unsqueeze_18, mul_23, mul_24, mul_25, unsqueeze_19, unsqueeze_20, unsqueeze_21, mul_26, unsqueeze_22, unsqueeze_23, unsqueeze_24, mul_27, sub_5, sub_6, mul_28, convolution_backward], Original ATen: [aten.view, aten.native_batch_norm_backward, aten.convolution_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_convolution_backward_native_batch_norm_backward_view_9.run(buf21, convolution_2, unsqueeze_15, buf19, squeeze_7, buf17, primals_18, 65536, 64, stream=stream0)
            del convolution_2
            del primals_18
            del squeeze_7
            del unsqueeze_15
            # Topologically Sorted Source Nodes: [view_21, sub_3, mul_22, unsqueeze_16, unsqueeze_17, unsqueeze_18, mul_23, mul_24, mul_25, unsqueeze_19, unsqueeze_20, unsqueeze_21, mul_26, unsqueeze_22, unsqueeze_23, unsqueeze_24, mul_27, sub_5, sub_6, mul_28, convolution_backward], Original ATen: [aten.view, aten.native_batch_norm_backward, aten.convolution_backward]
            buf22 = torch.ops.aten.convolution_backward.default(buf21, getitem_12, primals_14, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False])
            del buf21
            del getitem_12
            del primals_14
            buf23 = buf22[0]
            assert_size_stride(buf23, (512, 128, 8, 8), (8192, 1, 1024, 128), 'torch.ops.aten.convolution_backward.default')
            assert_alignment(buf23, 16, 'torch.ops.aten.convolution_backward.default')
            buf24 = buf22[1]
            assert_size_stride(buf24, (128, 128, 3, 3), (1152, 1, 384, 128), 'torch.ops.aten.convolution_backward.default')
            assert_alignment(buf24, 16, 'torch.ops.aten.convolution_backward.default')
            del buf22
            buf25 = empty_strided_cuda((512, 128, 16, 16), (32768, 1, 2048, 128), torch.float32)
            # Topologically Sorted Source Nodes: [x_4, max_pool2d_with_indices_backward_1], Original ATen: [aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_10.run(getitem_13, buf23, buf25, 16777216, stream=stream0)
            del buf23
            del getitem_13
            buf26 = buf11; del buf11  # reuse
            # Topologically Sorted Source Nodes: [empty_4], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf26, 1, stream=stream0)
            buf27 = buf10; del buf10  # reuse
            # Topologically Sorted Source Nodes: [empty_5], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf27, 1, stream=stream0)
            # Topologically Sorted Source Nodes: [view_24, expand_5, expand_6, backward_2], Original ATen: [aten.view, aten.expand, flexsn.backward]
            buf28 = torch.ops.flexsn.backward.default(9, [reinterpret_tensor(buf25, (8, 64, 128, 16, 16), (2097152, 32768, 1, 2048, 128), 0), tangents_3], [getitem_11], [reinterpret_tensor(buf26, (8, 64, 128, 16, 16), (0, 0, 0, 0, 0), 0), reinterpret_tensor(buf27, (64, 128, 16, 16), (0, 0, 0, 0), 0)], True)
            del buf25
            del getitem_11
            del tangents_3
            buf29 = buf28[0]
            assert_size_stride(buf29, (8, 64, 128, 16, 16), (2097152, 32768, 256, 16, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf29, 16, 'torch.ops.flexsn.backward.default')
            del buf28
            buf31 = buf16; del buf16  # reuse
            # Topologically Sorted Source Nodes: [view_25, sum_4], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_red_fused_native_batch_norm_backward_view_11.run(buf29, buf31, 512, 32768, stream=stream0)
            buf32 = buf19; del buf19  # reuse
            # Topologically Sorted Source Nodes: [view_25, sum_4], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_per_fused_native_batch_norm_backward_view_6.run(buf31, buf32, 128, 4, stream=stream0)
            del buf31
            buf33 = empty_strided_cuda((128, 1024), (1024, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_25, sub_7, mul_30, sum_5], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_red_fused_native_batch_norm_backward_view_12.run(buf29, convolution_1, unsqueeze_27, buf33, 128, 1024, 128, stream=stream0)
            buf34 = empty_strided_cuda((128, ), (1, ), torch.float32)
            buf35 = empty_strided_cuda((128, ), (1, ), torch.float32)
            # Topologically Sorted Source Nodes: [view_25, sub_7, mul_30, sum_5, mul_38], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_per_fused_native_batch_norm_backward_view_13.run(buf33, squeeze_4, buf34, buf35, 128, 1024, stream=stream0)
            del buf33
            buf36 = reinterpret_tensor(buf29, (512, 128, 16, 16), (32768, 256, 16, 1), 0); del buf29  # reuse
            # Topologically Sorted Source Nodes: [view_25, sub_7, mul_31, unsqueeze_28, unsqueeze_29, unsqueeze_30, mul_32, mul_33, mul_34, unsqueeze_31, unsqueeze_32, unsqueeze_33, mul_35, unsqueeze_34, unsqueeze_35, unsqueeze_36, mul_36, sub_9, sub_10, mul_37, convolution_backward_1], Original ATen: [aten.view, aten.native_batch_norm_backward, aten.convolution_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_convolution_backward_native_batch_norm_backward_view_14.run(buf36, convolution_1, unsqueeze_27, buf34, squeeze_4, buf32, primals_12, 65536, 256, stream=stream0)
            del buf34
            del convolution_1
            del primals_12
            del squeeze_4
            del unsqueeze_27
            # Topologically Sorted Source Nodes: [view_25, sub_7, mul_31, unsqueeze_28, unsqueeze_29, unsqueeze_30, mul_32, mul_33, mul_34, unsqueeze_31, unsqueeze_32, unsqueeze_33, mul_35, unsqueeze_34, unsqueeze_35, unsqueeze_36, mul_36, sub_9, sub_10, mul_37, convolution_backward_1], Original ATen: [aten.view, aten.native_batch_norm_backward, aten.convolution_backward]
            buf37 = torch.ops.aten.convolution_backward.default(buf36, getitem_5, primals_8, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False])
            del buf36
            del getitem_5
            del primals_8
            buf38 = buf37[0]
            assert_size_stride(buf38, (512, 128, 16, 16), (32768, 1, 2048, 128), 'torch.ops.aten.convolution_backward.default')
            assert_alignment(buf38, 16, 'torch.ops.aten.convolution_backward.default')
            buf39 = buf37[1]
            assert_size_stride(buf39, (128, 128, 3, 3), (1152, 1, 384, 128), 'torch.ops.aten.convolution_backward.default')
            assert_alignment(buf39, 16, 'torch.ops.aten.convolution_backward.default')
            del buf37
            buf40 = empty_strided_cuda((512, 128, 32, 32), (131072, 1, 4096, 128), torch.float32)
            # Topologically Sorted Source Nodes: [x_1, max_pool2d_with_indices_backward_2], Original ATen: [aten.max_pool2d_with_indices, aten.max_pool2d_with_indices_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_max_pool2d_with_indices_max_pool2d_with_indices_backward_15.run(getitem_6, buf38, buf40, 67108864, stream=stream0)
            del buf38
            del getitem_6
            buf41 = buf27; del buf27  # reuse
            # Topologically Sorted Source Nodes: [empty_6], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf41, 1, stream=stream0)
            buf42 = buf26; del buf26  # reuse
            # Topologically Sorted Source Nodes: [empty_7], Original ATen: [aten.empty]
            stream0 = get_raw_stream(0)
            triton_poi_fused_empty_0.run(buf42, 1, stream=stream0)
            # Topologically Sorted Source Nodes: [view_28, expand_7, expand_8, backward_3], Original ATen: [aten.view, aten.expand, flexsn.backward]
            buf43 = torch.ops.flexsn.backward.default(8, [reinterpret_tensor(buf40, (8, 64, 128, 32, 32), (8388608, 131072, 1, 4096, 128), 0), tangents_2], [getitem_4], [reinterpret_tensor(buf41, (8, 64, 128, 32, 32), (0, 0, 0, 0, 0), 0), reinterpret_tensor(buf42, (64, 128, 32, 32), (0, 0, 0, 0), 0)], True)
            del buf40
            del buf41
            del buf42
            del getitem_4
            del tangents_2
            buf44 = buf43[0]
            assert_size_stride(buf44, (8, 64, 128, 32, 32), (8388608, 131072, 1024, 32, 1), 'torch.ops.flexsn.backward.default')
            assert_alignment(buf44, 16, 'torch.ops.flexsn.backward.default')
            del buf43
            buf46 = empty_strided_cuda((128, 5), (1, 128), torch.float32)
            # Topologically Sorted Source Nodes: [view_29, sum_6], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_red_fused_native_batch_norm_backward_view_16.run(buf44, buf46, 640, 104858, stream=stream0)
            buf47 = empty_strided_cuda((128, ), (1, ), torch.float32)
            # Topologically Sorted Source Nodes: [view_29, sum_6], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_per_fused_native_batch_norm_backward_view_17.run(buf46, buf47, 128, 5, stream=stream0)
            del buf46
            buf48 = empty_strided_cuda((128, 1024), (1024, 1), torch.float32)
            # Topologically Sorted Source Nodes: [view_29, sub_11, mul_39, sum_7], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_red_fused_native_batch_norm_backward_view_18.run(buf44, convolution, unsqueeze_39, buf48, 128, 1024, 512, stream=stream0)
            buf49 = empty_strided_cuda((128, ), (1, ), torch.float32)
            buf50 = empty_strided_cuda((128, ), (1, ), torch.float32)
            # Topologically Sorted Source Nodes: [view_29, sub_11, mul_39, sum_7, mul_47], Original ATen: [aten.view, aten.native_batch_norm_backward]
            stream0 = get_raw_stream(0)
            triton_per_fused_native_batch_norm_backward_view_13.run(buf48, squeeze_1, buf49, buf50, 128, 1024, stream=stream0)
            del buf48
            buf51 = reinterpret_tensor(buf44, (512, 128, 32, 32), (131072, 1024, 32, 1), 0); del buf44  # reuse
            # Topologically Sorted Source Nodes: [view_29, sub_11, mul_40, unsqueeze_40, unsqueeze_41, unsqueeze_42, mul_41, mul_42, mul_43, unsqueeze_43, unsqueeze_44, unsqueeze_45, mul_44, unsqueeze_46, unsqueeze_47, unsqueeze_48, mul_45, sub_13, sub_14, mul_46, convolution_backward_2], Original ATen: [aten.view, aten.native_batch_norm_backward, aten.convolution_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused_convolution_backward_native_batch_norm_backward_view_19.run(buf51, convolution, unsqueeze_39, buf49, squeeze_1, buf47, primals_6, 65536, 1024, stream=stream0)
            del buf49
            del convolution
            del primals_6
            del squeeze_1
            del unsqueeze_39
            # Topologically Sorted Source Nodes: [view_29, sub_11, mul_40, unsqueeze_40, unsqueeze_41, unsqueeze_42, mul_41, mul_42, mul_43, unsqueeze_43, unsqueeze_44, unsqueeze_45, mul_44, unsqueeze_46, unsqueeze_47, unsqueeze_48, mul_45, sub_13, sub_14, mul_46, convolution_backward_2], Original ATen: [aten.view, aten.native_batch_norm_backward, aten.convolution_backward]
            buf52 = torch.ops.aten.convolution_backward.default(buf51, view, primals_2, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, False])
            del buf51
            del primals_2
            del view
            buf53 = buf52[1]
            assert_size_stride(buf53, (128, 3, 3, 3), (27, 1, 9, 3), 'torch.ops.aten.convolution_backward.default')
            assert_alignment(buf53, 16, 'torch.ops.aten.convolution_backward.default')
            del buf52
        return (None, buf53, None, None, None, buf50, buf47, buf39, None, None, None, buf35, buf32, buf24, None, None, None, buf20, buf17, buf7, reinterpret_tensor(buf9, (10, ), (1, ), 0), )

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
    squeeze_1 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    getitem_4 = rand_strided((8, 64, 128, 32, 32), (8388608, 131072, 1024, 32, 1), device='cuda:0', dtype=torch.float32)
    view_2 = rand_strided((512, 128, 32, 32), (131072, 1, 4096, 128), device='cuda:0', dtype=torch.float32)
    getitem_5 = rand_strided((512, 128, 16, 16), (32768, 1, 2048, 128), device='cuda:0', dtype=torch.float32)
    getitem_6 = rand_strided((512, 128, 16, 16), (32768, 1, 2048, 128), device='cuda:0', dtype=torch.int8)
    convolution_1 = rand_strided((512, 128, 16, 16), (32768, 1, 2048, 128), device='cuda:0', dtype=torch.float32)
    squeeze_4 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    getitem_11 = rand_strided((8, 64, 128, 16, 16), (2097152, 32768, 256, 16, 1), device='cuda:0', dtype=torch.float32)
    view_6 = rand_strided((512, 128, 16, 16), (32768, 1, 2048, 128), device='cuda:0', dtype=torch.float32)
    getitem_12 = rand_strided((512, 128, 8, 8), (8192, 1, 1024, 128), device='cuda:0', dtype=torch.float32)
    getitem_13 = rand_strided((512, 128, 8, 8), (8192, 1, 1024, 128), device='cuda:0', dtype=torch.int8)
    convolution_2 = rand_strided((512, 128, 8, 8), (8192, 1, 1024, 128), device='cuda:0', dtype=torch.float32)
    squeeze_7 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.float32)
    getitem_18 = rand_strided((8, 64, 128, 8, 8), (524288, 8192, 64, 8, 1), device='cuda:0', dtype=torch.float32)
    view_10 = rand_strided((512, 128, 8, 8), (8192, 64, 8, 1), device='cuda:0', dtype=torch.float32)
    getitem_20 = rand_strided((512, 128, 4, 4), (2048, 16, 4, 1), device='cuda:0', dtype=torch.int8)
    view_13 = rand_strided((512, 2048), (2048, 1), device='cuda:0', dtype=torch.float32)
    getitem_23 = rand_strided((8, 64, 10), (640, 10, 1), device='cuda:0', dtype=torch.float32)
    unsqueeze_15 = rand_strided((1, 128, 1, 1), (128, 1, 1, 1), device='cuda:0', dtype=torch.float32)
    unsqueeze_27 = rand_strided((1, 128, 1, 1), (128, 1, 1, 1), device='cuda:0', dtype=torch.float32)
    unsqueeze_39 = rand_strided((1, 128, 1, 1), (128, 1, 1, 1), device='cuda:0', dtype=torch.float32)
    tangents_1 = rand_strided((64, 10), (10, 1), device='cuda:0', dtype=torch.float32)
    tangents_2 = rand_strided((64, 128, 32, 32), (131072, 1024, 32, 1), device='cuda:0', dtype=torch.float32)
    tangents_3 = rand_strided((64, 128, 16, 16), (32768, 256, 16, 1), device='cuda:0', dtype=torch.float32)
    tangents_4 = rand_strided((64, 128, 8, 8), (8192, 64, 8, 1), device='cuda:0', dtype=torch.float32)
    tangents_5 = rand_strided((64, 10), (10, 1), device='cuda:0', dtype=torch.float32)
    return [primals_2, primals_6, primals_8, primals_12, primals_14, primals_18, primals_20, view, convolution, squeeze_1, getitem_4, view_2, getitem_5, getitem_6, convolution_1, squeeze_4, getitem_11, view_6, getitem_12, getitem_13, convolution_2, squeeze_7, getitem_18, view_10, getitem_20, view_13, getitem_23, unsqueeze_15, unsqueeze_27, unsqueeze_39, tangents_1, tangents_2, tangents_3, tangents_4, tangents_5]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
