"""Moved to :mod:`docintel.identifiers.codes` (the identifier kernel, shared with the single-document
external references); this name stays so that existing imports keep working."""

import sys

import docintel.identifiers.codes as _moved

sys.modules[__name__] = _moved
