# SPDX-License-Identifier: GPL-3.0-or-later
"""A Triton bf16/fp16 matmul, C = A @ B with fp32 accumulation, as a kwb worker.

The kernel is the grouped-ordering matmul of Triton's tutorial; its tile shape (BLOCK_M, BLOCK_N,
BLOCK_K), GROUP_M, num_warps and num_stages are the worker's parameters, so `kwb new --vary
BLOCK_K=32,64` makes an A/B of one tile choice. The reference is torch.mm on the same inputs in
fp32 (no TF32), so both arms are judged against the same exact product. A tile configuration that
does not fit the GPU's shared memory fails `prepare` with Triton's message (kwb new: exit 2).
"""

from types import SimpleNamespace

import torch
import triton
import triton.language as tl

import kwb_worker as kw


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # Grouped ordering: GROUP_M row tiles share their B column tiles while those sit in L2.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=c_mask)


DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def setup(p: kw.Params, seed: int) -> SimpleNamespace:
    for name in ("M", "N", "K"):
        if p[name] <= 0:
            raise ValueError(f"{name} must be positive, got {p[name]}")
    dtype = DTYPES[p.dtype]
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((p.M, p.K), generator=g, device="cuda", dtype=torch.float32).to(dtype)
    b = torch.randn((p.K, p.N), generator=g, device="cuda", dtype=torch.float32).to(dtype)
    c = torch.empty((p.M, p.N), device="cuda", dtype=dtype)
    grid = (triton.cdiv(p.M, p.BLOCK_M) * triton.cdiv(p.N, p.BLOCK_N),)
    return SimpleNamespace(a=a, b=b, c=c, grid=grid, p=p)


def run(s: SimpleNamespace) -> None:
    a, b, c, p = s.a, s.b, s.c, s.p
    if p.impl == "torch":
        # The path a user would pick instead: torch.mm (cuBLAS) on the same inputs into the same
        # output, so an A/B of impl=triton against impl=torch judges the kernel against it.
        torch.mm(a, b, out=c)
        return
    matmul_kernel[s.grid](
        a, b, c, p.M, p.N, p.K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=p.BLOCK_M, BLOCK_N=p.BLOCK_N, BLOCK_K=p.BLOCK_K, GROUP_M=p.GROUP_M,
        num_warps=p.num_warps, num_stages=p.num_stages,
    )


def reference(s: SimpleNamespace) -> torch.Tensor:
    # fp32 inputs (exact copies of the bf16/fp16 ones), fp32 product: the arms' only difference
    # from it is their own accumulation order and the final rounding to 16 bits.
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        return torch.mm(s.a.float(), s.b.float())
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous


def element_bytes(p: kw.Params) -> int:
    return torch.finfo(DTYPES[p.dtype]).bits // 8


kernel = kw.Kernel(
    name="triton-matmul",
    params=[
        kw.Param("M", 4096, description="rows of A and C"),
        kw.Param("N", 4096, description="columns of B and C"),
        kw.Param("K", 4096, description="columns of A, rows of B"),
        kw.Param("BLOCK_M", 128, values=[16, 32, 64, 128, 256], description="tile rows"),
        kw.Param("BLOCK_N", 128, values=[16, 32, 64, 128, 256], description="tile columns"),
        kw.Param("BLOCK_K", 64, values=[16, 32, 64, 128], description="K step per iteration"),
        kw.Param("GROUP_M", 8, values=[1, 2, 4, 8, 16], description="row tiles per L2 group"),
        kw.Param("num_warps", 8, values=[1, 2, 4, 8, 16]),
        kw.Param("num_stages", 3, values=[1, 2, 3, 4, 5, 6]),
        kw.Param("dtype", "bf16", values=list(DTYPES)),
        kw.Param("impl", "triton", values=["triton", "torch"],
                 description="triton: the kernel above; torch: torch.mm (cuBLAS), the reference a user would pick"),
    ],
    setup=setup,
    run=run,
    output=lambda s: s.c,
    reference=reference,
    flop_per_launch=lambda p: 2.0 * p.M * p.N * p.K,
    bytes_per_launch=lambda p: float((p.M * p.K + p.K * p.N + p.M * p.N) * element_bytes(p)),
    # |out - ref| <= 1e-2 * (1 + |ref|): the 16-bit rounding of C is 2^-9 (bf16) of |ref|.
    tolerance=1e-2,
    device="cuda",
)
