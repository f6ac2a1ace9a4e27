"""The offline engine: the deterministic, extractive ``offline`` backend and the line scoring
and table-row views it is built from. No model."""

from docintel.generation.offline.backend import OfflineBackend

__all__ = ["OfflineBackend"]
