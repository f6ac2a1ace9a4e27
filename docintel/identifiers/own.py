"""The publication a document *is*, read the cheap way (stdlib only, for the single-document loop).

A document names itself in its DOI line on the first pages ("https://doi.org/10.6028/NIST.SP.800-106"),
in running headers or footers on most pages ("NIST SP 800-106 ...") and in its cover's title block
("NIST Special Publication 800-60 Volume II", a 2008 SP with neither): such an id is the document,
not an external reference. The corpus reads a fuller identity
(``docintel.corpus.links.self_identity``: cover lines by font size, PDF metadata); this is the
part that needs no tables beyond the lines' text and role.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from docintel.identifiers import clean, find_identifiers, normalize

_DOI = re.compile(r"10\.6028/(NIST\.[A-Za-z]+\.[0-9A-Za-z.\-]+?)(?=[\s,;)]|\.?$)", re.M)
#: Kinds a document can be.
_SELF_KINDS = ("sp", "fips", "nistir", "rfc")
FURNITURE = frozenset({"header", "footer", "page_number"})
#: Lines of the first page that are its title block (furniture aside: one header is no identity, the
#: running ids above need most pages): a publication id printed there first is the
#: document's own (every NIST cover and RFC of the corpora prints it in its first 3 lines); one
#: further down a first page is cited ("... as specified in FIPS 197" in a paper's abstract).
TITLE_BLOCK = 5
#: Words that may precede the id on its title line ("NIST Special Publication 800-60": "NIST"); an id
#: further into its line is cited in a sentence ("Keys are generated as in SP 800-90 ...").
TITLE_LEAD = 1


def own_ids(lines: Iterable[tuple[int, str, str]], *, cover_pages: int = 4) -> set[str]:
    """Canonical ids the document is: ``lines`` are (page, role, text) of its lines."""
    first: list[str] = []
    running: dict[str, set[int]] = defaultdict(set)
    pages: set[int] = set()
    cover: list[str] = []  # the first page's title block, its first TITLE_BLOCK lines
    lowest = None
    for page, role, text in lines:
        if lowest is None or page < lowest:
            lowest, cover = page, []
        pages.add(page)
        if page <= cover_pages:
            first.append(clean(text))
        if page == lowest and len(cover) < TITLE_BLOCK and role not in FURNITURE:  # a header is no title
            cover.append(text)
        if role in FURNITURE:
            for m in find_identifiers(text):
                if m.ident.kind in _SELF_KINDS:
                    running[m.ident.canonical].add(page)
    out = {i.canonical for i in map(normalize, _DOI.findall("\n".join(first))) if i is not None}
    need = max(3, len(pages) / 2)
    out |= {c for c, ps in running.items() if len(ps) >= need}
    titled = [
        m.ident.canonical
        for text in cover
        for m in find_identifiers(text)
        if m.ident.kind in _SELF_KINDS and len(text[: m.start].split()) <= TITLE_LEAD
    ]
    return out | set(titled[:1])


def is_own(name: str, own: set[str]) -> bool:
    """Whether the external reference ``name`` names one of the document's own ids."""
    ident = normalize(name)
    return ident is not None and ident.canonical in own
