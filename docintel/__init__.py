"""docintel: PDF document intelligence that follows cross-references to the answer."""

from __future__ import annotations

from docintel import _lazy_layout

__version__ = "0.1.0"

_lazy_layout.install()  # pymupdf's layout model loads when a page escalates, not at import

__all__ = ["Corpus", "__version__", "ask", "parse"]


def __getattr__(name: str):
    # Lazy: `import docintel` stays fast; the API pulls pandas/pymupdf on first use.
    if name in ("parse", "ask"):
        from docintel import api

        return getattr(api, name)
    if name == "Corpus":
        from docintel.corpus import Corpus

        return Corpus
    raise AttributeError(name)
