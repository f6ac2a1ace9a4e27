"""Question parsing brick: question text -> ParsedQuestion (keywords, phrases, scope, shape)."""

from __future__ import annotations

from docintel.questions.parse import answer_shape, defined_term, find_scope, parse_question
from docintel.text import normalize, terms, words

__all__ = ["answer_shape", "defined_term", "find_scope", "normalize", "parse_question", "terms", "words"]
