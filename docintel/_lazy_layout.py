"""Keep ``import pymupdf`` from loading the layout model until a page needs it.

pymupdf 2.0 runs ``import pymupdf.layout`` inside its own ``__init__`` whenever the
``pymupdf_layout`` package is installed: the ONNX layout and table models cost ~0.6 s of CPU
in every process, although only escalated pages use them (``parsing/layout.py`` imports and
activates them then). This finder refuses that nested import while pymupdf is still
initialising (pymupdf4llm, which pymupdf imports, tries it a second time) and removes itself at
the first request after that: a later ``import pymupdf.layout`` (ours when a page
escalates, or the user's own) works as usual. Measured: ``import pymupdf`` 0.9 s -> 0.3 s CPU.

Workaround for pymupdf 2.0 (``pymupdf/__init__.py``: ``try: import pymupdf.layout``). It does
nothing when pymupdf was imported before docintel, or when ``DOCINTEL_EAGER_LAYOUT=1``.
"""

from __future__ import annotations

import importlib.abc
import os
import sys


class _DeferLayout(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "pymupdf.layout":
            return None
        parent = sys.modules.get("pymupdf")
        initialising = getattr(getattr(parent, "__spec__", None), "_initializing", False)
        if initialising:  # pymupdf's own import, or pymupdf4llm's, which pymupdf imports too
            raise ImportError("pymupdf.layout deferred by docintel until a page escalates")
        _uninstall()  # pymupdf is loaded: from now on the layout imports as usual
        return None


_FINDER = _DeferLayout()


def _uninstall() -> None:
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)


def install() -> None:
    """Defer the layout import of the next ``import pymupdf`` (no-op if pymupdf is loaded)."""
    if "pymupdf" in sys.modules or os.environ.get("DOCINTEL_EAGER_LAYOUT") == "1":
        return
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
