"""Kept for old imports: the protocol is in ``protocol.py``, the registry in ``registry.py``."""

from __future__ import annotations

from docintel.generation.protocol import LLMBackend
from docintel.generation.registry import BACKENDS, get_backend, register

__all__ = ["BACKENDS", "LLMBackend", "get_backend", "register"]
