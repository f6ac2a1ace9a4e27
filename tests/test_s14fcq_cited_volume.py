"""The follow path's "X is <file>" link quotes the cited document itself: where the evidence
cites one volume or revision of a publication and the corpus holds several that share its number,
only the copy cited is that document; a bare citation, or an edition the corpus lacks, keeps
every copy (the editions note says which the corpus holds)."""

from __future__ import annotations

import pandas as pd

from docintel.corpus.paths.follow import _cited_copies
from docintel.identifiers import find_identifiers

HELD = pd.DataFrame(
    {
        "ident_id": ["SP 800-60", "SP 800-60", "SP 800-61"],
        "doc_id": ["v1", "v2", "r2"],
        "ident_full": ["SP 800-60 Vol. 1 Rev. 1", "SP 800-60 Vol. 2 Rev. 1", "SP 800-61 Rev. 2"],
    }
)


def _mentions(text: str) -> list:
    return [(m, "") for m in find_identifiers(text, home=[], series_named=True)]


def test_a_cited_volume_is_the_only_copy_quoted_as_the_document():
    text = (
        "NIST SP 800-60 Revision 1, Volume 1: Guide for Mapping Types of Information. "
        "See also SP 800-60 for the categories."
    )  # the full reference, then its short form
    got = _cited_copies(HELD, _mentions(text))
    assert ("SP 800-60", "v1") in got
    assert ("SP 800-60", "v2") not in got


def test_a_bare_citation_or_a_missing_edition_keeps_every_copy():
    got = _cited_copies(HELD, _mentions("NIST SP 800-60 and NIST SP 800-61 Revision 1 describe it."))
    assert {("SP 800-60", "v1"), ("SP 800-60", "v2"), ("SP 800-61", "r2")} <= got
