"""The names a document gives itself: its title lines and the short name its opening defines.

Kept apart from :mod:`.refparts` (which reads provisions through the targets and the windows) so
that ranking (:mod:`.ownname`) can read them without an import cycle.
"""

from __future__ import annotations

import re

import pandas as pd

from docintel.retrieval.bm25 import document_memo
from docintel.schema.document import DocTables
from docintel.schema.kinds import FURNITURE_ROLES

#: The document naming itself in its opening: "THIS CREDIT AGREEMENT (this "Agreement")", "This Loan
#: Agreement, dated ...": the title (up to eight words ending in an instrument's noun) and the short
#: name defined right after it in parentheses.
_OPENING = re.compile(
    r"\b(?:THIS|This)[\s\u00a0]+(?P<title>(?:[A-Z0-9][\w\u2019'&\-]*[\s\u00a0]+){0,8}?"
    r"(?i:agreement|indenture|plan|lease|guaranty|guarantee|note|contract|deed|charter|bylaws|policy))\b"
    r"(?P<rest>[^()]{0,80}?\((?:(?i:this|the|hereinafter|referred|to|as)[\s\u00a0]+){0,4}"
    r"[\"\u201c\u2018'](?P<short>[^\"\u201d\u2019']{2,60})[\"\u201d\u2019'])?"
)
_SPACE = re.compile(r"[\s\u00a0]+")


def norm_name(text: str) -> str:
    return _SPACE.sub(" ", re.sub(r"[\"\u201c\u201d\u2018\u2019]", "", str(text))).strip().casefold()


def own_titles(tables: DocTables) -> tuple[str, ...]:
    """The names the document gives itself (case-folded): the largest-type lines and title lines
    of its first two pages and the title and defined short name of a 'THIS [NAME] (this "...")'
    opening."""
    return document_memo(tables, "own_titles", lambda: _scan_titles(tables))


def _scan_titles(tables: DocTables) -> tuple[str, ...]:
    ldf = tables.line_df
    first = ldf[(ldf["page"] <= ldf["page"].min() + 1) & ~ldf["role"].fillna("body").isin(FURNITURE_ROLES)]
    if first.empty:
        return ()
    titles: list[str] = []
    size = first.get("size")
    big = first.iloc[0:0]
    if size is not None and size.notna().any() and size.max() > size.median():
        big = first[size >= size.max() - 0.5]
        big = big if len(big) <= 6 else big.iloc[0:0]  # a page set in one large type names nothing
    titles += [norm_name(t) for t in pd.concat([big, first[first["role"] == "title"]])["text"].astype(str)]
    m = _OPENING.search(" ".join(first["text"].astype(str).head(60)))
    if m:
        titles.append(norm_name(m.group("title")))
        if m.group("short"):
            titles.append(norm_name(m.group("short")))
    return tuple(dict.fromkeys(t for t in titles if len(t) > 2))
