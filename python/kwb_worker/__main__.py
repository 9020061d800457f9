# SPDX-License-Identifier: GPL-3.0-or-later
"""`python3 -m kwb_worker FILE.py`: the worker process kwb starts for one arm.

The protocol's fds are taken first, before the user's file (and whatever it imports) can print.
A file that fails to import, or declares no kernel, still gets a worker: every request is then
answered `ok: false` with the reason, so kwb reports it instead of a bare crash.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import traceback
from typing import Optional, Tuple

USAGE = "usage: python3 -m kwb_worker FILE.py  (a file that defines one kwb_worker.Kernel)"


def _load(path: str) -> Tuple[Optional[object], Optional[str]]:
    """The Kernel the file defines (a global named `kernel`, or its only Kernel), or why not."""
    from . import protocol
    from .kernel import Kernel

    if not os.path.isfile(path):
        return None, f"no such file: {path}"
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)  # the file may import its neighbours, as `python3 FILE.py` allows
    try:
        spec = importlib.util.spec_from_file_location("kwb_user_kernel", path)
        if spec is None or spec.loader is None:
            return None, f"cannot load {path} as Python"
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    except BaseException as exc:  # SystemExit in the file, too: the worker must still answer
        traceback.print_exc(file=sys.stderr)
        return None, f"loading {os.path.basename(path)} failed: {protocol.one_line(exc, path)}"
    named = getattr(module, "kernel", None)
    if isinstance(named, Kernel):
        return named, None
    found = [v for v in vars(module).values() if isinstance(v, Kernel)]
    if len(found) == 1:
        return found[0], None
    if not found:
        return None, f"{os.path.basename(path)} defines no kwb_worker.Kernel"
    return None, f"{os.path.basename(path)} defines {len(found)} kernels; name the one to serve `kernel`"


def main(argv: Optional[list] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr)
        return 2
    from . import protocol

    channel = protocol.Channel.take_std_fds()
    kernel, error = _load(args[0])
    worker = protocol.Worker(kernel, user_file=os.path.abspath(args[0]), load_error=error)
    return protocol.serve(channel, worker)


if __name__ == "__main__":
    status = main()
    # os._exit, not a normal exit: a non-daemon thread of a library (a compile pool) must not keep
    # the worker alive after `release`; kwb waits only 5 s before it ends the group.
    sys.stderr.flush()
    os._exit(status)
