# SPDX-License-Identifier: GPL-3.0-or-later
"""torch's scaled_dot_product_attention under one chosen backend, as a kwb worker.

`backend` picks the kernel through torch.nn.attention.sdpa_kernel (flash, cudnn, efficient, math),
so `kwb new --vary backend=flash,cudnn` is an A/B of two attention implementations on the same
inputs. The reference is the math backend in fp32 on the same inputs, one batch element at a
time (it materialises the S x S scores). A backend that cannot run the shape or dtype fails
`prepare` with torch's reason (kwb new: exit 2).
"""

from types import SimpleNamespace

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import kwb_worker as kw

BACKENDS = {
    "flash": SDPBackend.FLASH_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
    "math": SDPBackend.MATH,
}
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def setup(p: kw.Params, seed: int) -> SimpleNamespace:
    for name in ("batch", "heads", "seq", "head_dim"):
        if p[name] <= 0:
            raise ValueError(f"{name} must be positive, got {p[name]}")
    g = torch.Generator(device="cuda").manual_seed(seed)
    shape = (p.batch, p.heads, p.seq, p.head_dim)
    q, k, v = (torch.randn(shape, generator=g, device="cuda", dtype=torch.float32).to(DTYPES[p.dtype])
               for _ in range(3))
    return SimpleNamespace(q=q, k=k, v=v, out=torch.empty_like(q), backend=BACKENDS[p.backend],
                           causal=bool(p.causal))


def run(s: SimpleNamespace) -> None:
    # SDPA allocates its result; it replaces s.out (a copy_ into a fixed buffer would add a
    # memory-bound kernel to every timed launch). The NaN poison lands on the buffer setup made;
    # a stale allocation reused by torch's caching allocator holds another seed's answer and
    # fails the reference.
    with sdpa_kernel(s.backend):
        s.out = F.scaled_dot_product_attention(s.q, s.k, s.v, is_causal=s.causal)


def reference(s: SimpleNamespace) -> torch.Tensor:
    parts = []
    with sdpa_kernel(SDPBackend.MATH):
        for b in range(s.q.shape[0]):
            parts.append(F.scaled_dot_product_attention(
                s.q[b:b + 1].float(), s.k[b:b + 1].float(), s.v[b:b + 1].float(), is_causal=s.causal))
    return torch.cat(parts)


def flop(p: kw.Params) -> float:
    # QK^T and PV, 2 flops per multiply-add each; a causal mask skips half the score matrix.
    full = 4.0 * p.batch * p.heads * p.seq * p.seq * p.head_dim
    return full / 2 if p.causal else full


kernel = kw.Kernel(
    name="torch-sdpa",
    params=[
        kw.Param("backend", "flash", values=list(BACKENDS), description="torch.nn.attention.SDPBackend"),
        kw.Param("batch", 4),
        kw.Param("heads", 32),
        kw.Param("seq", 4096, description="query and key length"),
        kw.Param("head_dim", 128, values=[64, 128, 256]),
        kw.Param("causal", 1, values=[0, 1]),
        kw.Param("dtype", "bf16", values=list(DTYPES)),
    ],
    setup=setup,
    run=run,
    output=lambda s: s.out,
    reference=reference,
    flop_per_launch=flop,
    # q, k, v read once and the output written once: the floor a fused kernel moves.
    bytes_per_launch=lambda p: 4.0 * p.batch * p.heads * p.seq * p.head_dim * 2,
    # bf16 output: its rounding is 2^-9 of |ref|; softmax in other orders adds a little more.
    tolerance=2e-2,
    device="cuda",
)
