# SPDX-License-Identifier: GPL-3.0-or-later
"""A blocked float32 matmul in numpy, C = A @ B, as a kwb worker (docs/worker-protocol.md).

`block` is the tile edge: small tiles pay numpy's per-call overhead on every tile product, so
block=16 is several times slower than block=64 at n=256 (see README.md). `variant=wrong` skips
the last tile of the K loop: every element is written, but wrong, and the reference says so.
Runs on any CPU; CI drives it through kwb.
"""

from types import SimpleNamespace

import numpy as np

import kwb_worker as kw


def setup(p: kw.Params, seed: int) -> SimpleNamespace:
    if p.n <= 0:
        raise ValueError(f"n must be positive, got {p.n}")
    rng = np.random.default_rng(seed)
    # A print is harmless here: the helper points stdout at stderr before this file is imported.
    print(f"numpy matmul: n={p.n} block={p.block} variant={p.variant} seed={seed}")
    return SimpleNamespace(
        a=rng.standard_normal((p.n, p.n), dtype=np.float32),
        b=rng.standard_normal((p.n, p.n), dtype=np.float32),
        c=np.empty((p.n, p.n), dtype=np.float32),
        block=p.block,
        wrong=p.variant == "wrong",
    )


def run(s: SimpleNamespace) -> None:
    n, bs = s.a.shape[0], s.block
    k_end = max(n - bs, 0) if s.wrong else n
    s.c.fill(0)
    for i in range(0, n, bs):
        for j in range(0, n, bs):
            tile = s.c[i:i + bs, j:j + bs]  # a view: += writes into C
            for k in range(0, k_end, bs):
                tile += s.a[i:i + bs, k:k + bs] @ s.b[k:k + bs, j:j + bs]


def output(s: SimpleNamespace) -> np.ndarray:
    return s.c


def reference(s: SimpleNamespace) -> np.ndarray:
    return s.a.astype(np.float64) @ s.b.astype(np.float64)


kernel = kw.Kernel(
    name="numpy-blocked-matmul",
    params=[
        kw.Param("n", 256, description="matrix size (n x n, float32)"),
        kw.Param("block", 64, values=[8, 16, 32, 64, 128, 256], description="tile edge"),
        kw.Param("variant", "blocked", values=["blocked", "wrong"],
                 description="wrong: skips the last K tile (a wrong result for the check to catch)"),
    ],
    setup=setup,
    run=run,
    output=output,
    reference=reference,
    flop_per_launch=lambda p: 2.0 * p.n ** 3,
    bytes_per_launch=lambda p: 3.0 * 4 * p.n ** 2,
    tolerance=1e-4,
    device="cpu",
)
