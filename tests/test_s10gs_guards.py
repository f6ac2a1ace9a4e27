"""The cheap guards in front of two provision-scan regexes change nothing: each guard is a necessary
condition of its regex's match."""

from __future__ import annotations

import itertools
import re

import pytest

from docintel.api import parse
from docintel.parsing import provision_starts as ps

from .conftest import PDFS

_BEFORE = ["", "x", "X", "1", "_", " ", "(", "-", "é", "under ", "see Section 5 of ", "foo,", "a; "]
_AFTER = ["", ".", "s", "x", ")", " 5"]


def _words_of_the_pattern() -> set[str]:
    """Every word ``_REF_END`` matches alone, found by brute force over its alternatives' spellings."""
    body = ps._REF_END.pattern[len(r"\b(?:") : -len(")$")]
    out = set()
    for alt in body.split("|"):
        m = re.fullmatch(r"(?:\[(\w)(\w)\])?(\w+?)(s\?)?", alt)
        assert m, alt
        firsts = [m[1], m[2]] if m[1] else [""]
        for a, s in itertools.product(firsts, ["", "s"] if m[4] else [""]):
            out.add(a + m[3] + s)
    return out


def test_the_word_list_is_the_pattern_s_words():
    words = _words_of_the_pattern()
    assert set(ps._REF_END_WORDS) == words
    assert all(ps._REF_END.fullmatch(w) for w in words)


@pytest.mark.parametrize(
    "word", sorted(_words_of_the_pattern() | {"Of", "SECTION", "And", "Or", "ands", "sees"})
)
def test_guarded_ref_end_equals_the_regex(word):
    for before, after in itertools.product(_BEFORE, _AFTER):
        t = (before + word + after).rstrip()
        assert ps._ref_end(t) == (ps._REF_END.search(t) is not None), t


@pytest.mark.parametrize(
    "t",
    ["a, and", "a; or", "a ,  and", "a and", "a,and", "a, AND", "a, Or", "a, andor", "a, or.", "b;\tor", ""],
)
def test_the_and_or_guard_is_necessary(t):
    assert (t.endswith(("and", "or")) and ps._AND_OR.search(t) is not None) == (
        ps._AND_OR.search(t) is not None
    )


@pytest.fixture(scope="module", params=sorted(p.name for p in PDFS.glob("*.pdf")))
def tables(request, tmp_path_factory):
    return parse(PDFS / request.param, out_dir=tmp_path_factory.mktemp("a"), layout="never", ocr="never")


def test_guards_agree_on_every_line(tables):
    for x in tables.line_df["text"].tolist():
        t = str(x).rstrip()
        assert ps._ref_end(t) == (ps._REF_END.search(t) is not None), t
