# SPDX-License-Identifier: GPL-3.0-or-later
"""Your own kernel as a Kernel Workbench worker arm (docs/worker-protocol.md, protocol 1).

A user file declares one kernel::

    import kwb_worker as kw

    kernel = kw.Kernel(
        name="numpy-matmul",
        params=[kw.Param("n", 256), kw.Param("block", 64, values=[16, 64, 128])],
        setup=setup,          # setup(params, seed) -> state: inputs drawn from seed, output allocated
        run=run,              # run(state): one launch
        output=output,        # output(state) -> the buffer run writes
        reference=reference,  # optional: reference(state) -> the right answer
        flop_per_launch=lambda p: 2 * p.n**3,
    )

and kwb runs it with ``python3 -m kwb_worker path/to/file.py``. Nothing here imports torch,
cupy or numpy at import time: the helper uses what the user's file imported.
"""

from .kernel import Kernel, Metric, Param, Params

__version__ = "1.0.0"
__all__ = ["Kernel", "Metric", "Param", "Params", "__version__"]
