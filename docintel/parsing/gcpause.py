"""Pause Python's cyclic garbage collector for one stage (or the whole PyMuPDF parse).

The structure stages allocate hundreds of thousands of small objects (a dict and a
``Candidate`` per line, namedtuples, pandas intermediates) while the page stage's objects
are still alive, so the collector's passes keep walking every live object: 13-16% of
``build_toc`` + ``build_objects`` on two long NIST SPs (BENCHMARKS.md "Issue 18ST, session 7").
Almost nothing they allocate is cyclic garbage (reference counting frees it), and what is
gets collected once the stage returns. Outputs do not depend on when the collector runs.
"""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def paused():
    """Disable the cyclic collector inside the block; re-enable it after (if it was enabled)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
