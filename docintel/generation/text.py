"""Text helpers shared by the offline backend, the reference detector and the validator.

Everything that compares evidence with something (a quote, a question term) goes
through :func:`normalize` (the kernel's ``docintel.text.comparison_form``) so that ligatures,
line-break hyphens and spacing never decide whether two strings match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from docintel.text import QUESTION_WORDS, STOP_WORDS, nfkc  # one word list for every brick
from docintel.text import comparison_form as normalize  # the kernel's comparison form

__all__ = [
    "STOPWORDS",
    "clip",
    "content_stems",
    "ends_sentence",
    "join_lines",
    "nfkc",
    "normalize",
    "stem",
    "tokens",
]

_SENTENCE_END = re.compile(r"[.!?:;][\"'\u201d)\]]*$")

STOPWORDS = STOP_WORDS | QUESTION_WORDS


def join_lines(texts: Iterable[str]) -> str:
    """Join evidence lines into prose: 'extrapo-' + 'late' becomes 'extrapolate'. A word the
    line itself writes with a hyphen before another word keeps its hyphen at the line's end
    ('... specifying include-all. For annual assessments, use include-' + 'control instead'
    is 'include-control', not 'includecontrol'): the line shows the hyphen is the word's."""
    out, last = "", ""
    for raw in texts:
        t = (raw or "").strip()
        if not t:
            continue
        if not out:
            out = t
        elif (m := _BREAK.search(out)) and t[:1].islower():
            out = out[:-1] + t if not _hyphenated(last, m.group(1)) else out + t
        else:
            out = out + " " + t
        last = t
    return out


#: A line ending in a hyphen after a letter; group 1: the word fragment before it.
_BREAK = re.compile(r"([^\W\d_]+)[-\u2010]$")


def _hyphenated(line: str, word: str) -> bool:
    """Whether ``line`` writes ``word`` with a hyphen before a lower-case word before its end."""
    return re.search(rf"(?<![^\W\d_]){re.escape(word)}[-\u2010][a-z]", line[:-1]) is not None


def stem(word: str) -> str:
    """The shared Porter stem (docintel.text), case-folded first."""
    from docintel.text import stem as porter

    return porter(word.casefold())


def tokens(text: str) -> list[str]:
    """Lower-cased word and number tokens of ``text`` (the shared tokeniser, docintel.text)."""
    from docintel.text import words

    return words(text)


def content_stems(text: str) -> set[str]:
    """Index terms of the content words (the shared docintel.text.terms: stop words out,
    Porter stems, numbers and identifiers as written)."""
    from docintel.text import terms

    return set(terms(text))


def ends_sentence(text: str) -> bool:
    """Whether a line ends a sentence (so a window may stop after it)."""
    return bool(_SENTENCE_END.search((text or "").rstrip()))


def clip(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters at a word boundary, marking the cut with '...'."""
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - 3)].rsplit(" ", 1)[0]
    return cut + "..."
