"""Moved to :mod:`docintel.identifiers.pubs` (the identifier kernel, shared with the single-document
external references); this name stays so that existing imports keep working."""

import sys

import docintel.identifiers.pubs as _moved

sys.modules[__name__] = _moved
