# SPDX-License-Identifier: GPL-3.0-or-later
"""A user file that fails to import: the worker must still answer, every request ok:false."""

import kwb_worker_no_such_module  # noqa: F401
