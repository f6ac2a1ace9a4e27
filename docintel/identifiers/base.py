"""The types the identifier normalizer is made of (see ``identifiers.py``)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

Attrs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Ident:
    """One identifier in its canonical spelling.

    ``canonical`` is the link key ("SP 800-53", "FIPS 140", "AC-2", "45 CFR 164.308(a)(1)");
    ``full`` adds the qualifiers written with it ("SP 800-53 Rev. 4", "FIPS 140-2", "AC-2(1)");
    ``attrs`` holds them one by one (revision, volume, part, enhancement, ...).
    """

    kind: str
    canonical: str
    full: str
    attrs: Attrs = ()

    def attr(self, name: str) -> str | None:
        """The value of attribute ``name``, or None when the mention did not carry it."""
        return dict(self.attrs).get(name)

    @property
    def revision(self) -> str | None:
        return self.attr("revision")


@dataclass(frozen=True)
class Mention:
    """One identifier found in a text: what it is, how it was spelled, where."""

    ident: Ident
    surface: str
    start: int
    end: int


@dataclass(frozen=True)
class IdentKind:
    """One identifier system: how it is written and how it is normalized.

    ``build(match, ctx)`` returns the identifiers one match names (a list "800-30, 800-39"
    or an enhancement run "AC-2 (1) (2)" names several) or ``[]`` to reject the match
    (a footnote glued to a number, a category that does not exist). ``cont`` continues a
    list after a match ("Special Publications 800-30, 800-39 and 800-53"). ``home`` lists
    the publications inside which a context-bound kind needs no textual context.
    """

    name: str
    regex: re.Pattern
    build: Callable[[re.Match, Ctx], list[Ident]]
    description: str
    attributes: tuple[str, ...] = ()
    cont: re.Pattern | None = None
    home: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ctx:
    """What the finder knows around a match: the text, and whether context-bound forms count."""

    text: str
    permissive: bool  # normalize(): the caller says the surface is an identifier
    home: frozenset[str]  # canonical ids of the publication the text belongs to
    series_named: bool  # the text names the SP series with a prefix somewhere


def make_attrs(**kw: str | None) -> Attrs:
    return tuple((k, v) for k, v in kw.items() if v)


#: Between the items of a list: "800-30, 800-39 and 800-53", "FIPS 199 and 200".
LIST_SEP = r"(?:\s*,\s*(?:and\s+|or\s+|&\s*)?|\s+(?:and|or|&)\s+)"


def clean(text: str) -> str:
    """NFKC and dash variants folded, so "SP 800‑53" (a non-breaking hyphen) is "SP 800-53"."""
    text = unicodedata.normalize("NFKC", text or "")
    return re.sub("[\u2010\u2011\u2012\u2013\u2212\u00ad]", "-", text)  # not the em dash: "B\u2014CSF"
