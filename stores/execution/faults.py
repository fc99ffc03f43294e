"""Named crash points for the crash harness (``ZSPACE_CRASH_AT``)."""


from __future__ import annotations

import os
import signal
import time
from typing import Literal

CRASH_ENV = "ZSPACE_CRASH_AT"
CrashPoint = Literal["before_call", "after_call", "after_record"]



def crash_point(point: CrashPoint, call_id: str) -> None:
    """Kill this process with SIGKILL at a named point, when ``ZSPACE_CRASH_AT`` asks for it.

    For the crash harness (``python -m bench crash``): ``ZSPACE_CRASH_AT=after_call:s2.core``
    kills the process right after the tool returned and before its result was recorded.
    ``before_call`` is after the ledger recorded the intent, ``after_record`` after it recorded
    the result (before the checkpoint). ``hang_<point>`` sleeps instead (to hold a run's lease).
    Unset, it costs one dictionary lookup.
    """
    wanted = os.environ.get(CRASH_ENV)
    if not wanted:
        return
    for entry in wanted.split(","):
        name, _, target = entry.strip().partition(":")
        if target not in (call_id, "*"):
            continue
        if name == point:
            os.kill(os.getpid(), signal.SIGKILL)
        elif name == f"hang_{point}":
            time.sleep(3600)




