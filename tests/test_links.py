"""Document mentions, self-identity and the link graph over small hand-made documents."""

from __future__ import annotations

import pandas as pd

from docintel.corpus.links import (
    IDENTITY_COLUMNS,
    LINK_COLUMNS,
    MENTION_COLUMNS,
    identity_rows,
    link_graph,
    mentions_for,
    self_identity,
)
from docintel.identifiers import Ident
from docintel.schema.document import DocTables


def _doc(doc_id: str, pages: list[list[tuple[str, str, float]]]) -> DocTables:
    rows = []
    for p, lines in enumerate(pages, 1):
        for n, (text, role, size) in enumerate(lines, 1):
            rows.append({"doc_id": doc_id, "page": p, "line": n, "text": text, "role": role, "size": size})
    empty = pd.DataFrame()
    return DocTables(doc_id, pd.DataFrame(rows), empty, empty, empty, empty, empty, manifest={})


SP53 = _doc(
    "sp53",
    [
        [
            ("NIST Special Publication 800-53", "body", 9.5),
            ("Recommended Security Controls", "title", 17.5),
            ("Revision 3", "body", 9.5),
        ],
        [
            ("Special Publication 800-53 Recommended Security Controls", "header", 8.0),
            ("AC-2 ACCOUNT MANAGEMENT with enhancements AC-2 (1) (2).", "body", 10.0),
            ("ii", "page_number", 8.0),
        ],
    ],
)
CSF = _doc(
    "csf",
    [
        [("Framework for Improving Critical Infrastructure Cybersecurity", "title", 20.0)],
        [
            ("https://doi.org/10.6028/NIST.CSWP.04162018", "body", 9.0),
            (
                "PR.AC-1 Identities are managed. NIST SP 800-53 Rev. 4 AC-2, IA-2; see NIST SP 800-",
                "table",
                8.0,
            ),
            ("53 Rev. 4 for the controls and FIPS 199 for categories.", "body", 10.0),
        ],
    ],
)
CROSSWALK = _doc(
    "xwalk",
    [
        [
            ("HIPAA Security Rule Crosswalk to NIST Cybersecurity Framework", "body", 12.0),
            (
                "The crosswalk maps 45 C.F.R. § 164.308(a)(1) to PR.AC-1 and to NIST SP 800-53 AC-2.",
                "body",
                10.0,
            ),
        ],
        [("SP 800-53 Rev. 4 in a running footer", "footer", 8.0)],
    ],
)


def test_self_identity_reads_the_cover_and_the_revision_line():
    ident = self_identity(SP53)
    assert [i.full for i in ident] == ["SP 800-53 Rev. 3"]
    assert ident[0].revision == "3"


def test_self_identity_reads_the_doi():
    assert [i.full for i in self_identity(CSF)] == ["CSF 1.1"]


def test_a_document_that_only_cites_has_no_identity():
    # the Framework is named on its cover, and SP 800-53 in a footer: it *is* neither
    assert self_identity(CROSSWALK) == []


def test_mentions_skip_furniture_and_join_ids_split_across_lines():
    m = mentions_for(CSF)
    assert list(m.columns) == MENTION_COLUMNS
    split = m[(m["ident_id"] == "SP 800-53") & (m["line"] == 2)]
    assert "NIST SP 800- 53 Rev. 4" in set(split["surface"])
    assert set(split["ident_full"]) == {"SP 800-53 Rev. 4"}
    assert set(m["source"]) >= {"table", "body"}
    sp = mentions_for(SP53)
    assert "header" not in set(sp["source"]) and "page_number" not in set(sp["source"])
    assert sorted(sp["ident_full"]) == ["AC-2", "AC-2(1)", "AC-2(2)", "SP 800-53"]  # the cover names itself
    ctrl = sp[sp["kind"] == "control"]
    assert (ctrl["page"] == 2).all() and (ctrl["line"] == 2).all()


def test_mentions_of_an_empty_document():
    empty = _doc("e", [])
    assert mentions_for(empty).empty and list(mentions_for(empty).columns) == MENTION_COLUMNS


def _graph():
    docs = [SP53, CSF, CROSSWALK]
    mentions = pd.concat([mentions_for(d) for d in docs], ignore_index=True)
    ids = {d.doc_id: self_identity(d) for d in docs}
    return link_graph(mentions, ids), mentions, ids


def test_link_graph_reports_revision_mismatch():
    links, _, _ = _graph()
    assert list(links.columns) == LINK_COLUMNS
    csf_to_53 = links[(links["citing_doc"] == "csf") & (links["cited_doc"] == "sp53")]
    assert set(csf_to_53["edition"]) == {"mismatch"}
    assert set(csf_to_53["note"]) == {"cites Rev. 4; the corpus holds Rev. 3"}
    assert csf_to_53["n_mentions"].sum() == 2


def test_link_graph_unqualified_citation_and_framework_identity():
    links, _, _ = _graph()
    x = links[links["citing_doc"] == "xwalk"]
    assert set(zip(x["cited_doc"], x["ident_id"], x["edition"], strict=True)) == {
        ("sp53", "SP 800-53", "unqualified"),
        ("csf", "CSF", "unqualified"),
    }


def test_self_mentions_are_not_links():
    links, mentions, _ = _graph()
    assert (mentions["doc_id"] == "sp53").any()
    assert not ((links["citing_doc"] == links["cited_doc"]).any())
    assert links[links["citing_doc"] == "sp53"].empty  # SP 800-53 names only itself and its controls


def test_link_graph_accepts_identity_rows_and_compares_volumes():
    mentions = pd.DataFrame(
        [("a", 3, 1, "SP 800-60", "SP 800-60 Vol. 2", "SP 800-60-2", "sp", "body", None)],
        columns=MENTION_COLUMNS,
    )
    held = pd.concat(
        [
            identity_rows(
                "v1",
                [Ident("sp", "SP 800-60", "SP 800-60 Vol. 1 Rev. 1", (("volume", "1"), ("revision", "1")))],
            ),
            identity_rows(
                "v2",
                [Ident("sp", "SP 800-60", "SP 800-60 Vol. 2 Rev. 1", (("volume", "2"), ("revision", "1")))],
            ),
        ]
    )
    assert list(held.columns) == IDENTITY_COLUMNS
    links = link_graph(mentions, held).set_index("cited_doc")
    assert links.loc["v2", "edition"] == "match"
    assert links.loc["v1", "edition"] == "mismatch"
    assert links.loc["v1", "note"] == "cites Vol. 2; the corpus holds Vol. 1 Rev. 1"
    assert links.loc["v1", "pages"] == [3]


def test_link_graph_of_nothing():
    assert link_graph(pd.DataFrame(columns=MENTION_COLUMNS), {}).empty


def test_rfc_and_cfr_part_identities_and_a_section_links_to_its_part():
    rfc = _doc("rfc", [[("Internet Engineering Task Force (IETF) D. Hardt, Ed.", "body", 9.9),
                        ("Request for Comments: 6749 Microsoft", "body", 9.9)]])  # fmt: skip
    assert [i.full for i in self_identity(rfc)] == ["RFC 6749"]
    part = _doc("part164", [[("Title 45 \u2014Public Welfare", "body", 10.0),
                             ("Subtitle A \u2014Department of Health and Human Services", "body", 10.0),
                             ("PART 164\u2014SECURITY AND PRIVACY", "heading", 14.3),
                             ("\u00a7 164.102 Statutory basis.", "heading", 10.0)]])  # fmt: skip
    assert [i.canonical for i in self_identity(part)] == ["45 CFR 164"]
    docs = [part, CROSSWALK]
    mentions = pd.concat([mentions_for(d) for d in docs], ignore_index=True)
    links = link_graph(mentions, {d.doc_id: self_identity(d) for d in docs})
    to_part = links[links["cited_doc"] == "part164"]
    assert list(to_part["ident_id"]) == ["45 CFR 164.308(a)(1)"]
    assert list(to_part["held_as"]) == ["45 CFR 164"]
