"""Text helpers shared by the offline backend, the reference detector and the validator.

Everything that compares evidence with something (a quote, a question term) goes
through :func:`normalize` so that ligatures, line-break hyphens and spacing never
decide whether two strings match.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_WS = re.compile(r"\s+")
# A hyphen at a line break between two letters, the next one lower-case: "extrapo-\nlate".
# Upper-case or digit continuations ("SP 800-\n90", "Self-\nAttention") keep their hyphen.
_BREAK_HYPHEN = re.compile(r"([^\W\d_])[-\u00ad\u2010]\s+([a-z])")
_SENTENCE_END = re.compile(r"[.!?:;][\"'\u201d)\]]*$")

from docintel.text import QUESTION_WORDS, STOP_WORDS  # noqa: E402  one word list for every brick

STOPWORDS = STOP_WORDS | QUESTION_WORDS


def nfkc(text: str) -> str:
    """Unicode NFKC (splits ligatures like 'ﬁ'), soft hyphens removed."""
    return unicodedata.normalize("NFKC", text or "").replace("\u00ad", "")


def join_lines(texts: Iterable[str]) -> str:
    """Join evidence lines into prose: 'extrapo-' + 'late' becomes 'extrapolate'."""
    out = ""
    for raw in texts:
        t = (raw or "").strip()
        if not t:
            continue
        if not out:
            out = t
        elif re.search(r"[^\W\d_][-\u2010]$", out) and t[:1].islower():
            out = out[:-1] + t
        else:
            out = out + " " + t
    return out


def normalize(text: str) -> str:
    """The comparison form: NFKC, line-break hyphens joined, whitespace collapsed, casefolded."""
    t = nfkc(text)
    t = _BREAK_HYPHEN.sub(r"\1\2", t)
    return _WS.sub(" ", t).strip().casefold()


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
