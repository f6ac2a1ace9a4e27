"""Session 15 (f10): faults found reviewing s10's set 10 changes, each shown on a document first."""

from __future__ import annotations

from tests.test_s15s10_set10_misses import _publication


def test_a_publication_number_the_cover_cites_is_no_own_name():
    # RFC 6749's first page: "Request for Comments: 6749 ... Obsoletes: 5849" and "This
    # specification replaces and obsoletes the OAuth 1.0 protocol described in RFC 5849": the
    # cover prints 5849, but as another publication's, and a question about RFC 5849 lost its
    # topic (the reference list's page 70 fell out of the top for "How is RFC 5849 cited in the
    # references?"); only the first number a cover prints is the document's own
    from docintel.questions import parse_question
    from docintel.retrieval.ownname import own_name_terms

    cover = "Request for Comments: 6749 Obsoletes: 5849 October 2012 protocol described in RFC 5849."
    tables = _publication(cover, "body")
    cited = parse_question("Which two publications was the specification based on besides RFC 5849?")
    assert not own_name_terms(cited, tables) & {"rfc", "5849"}
    own = parse_question("How does RFC 6749 define an access token for a client?")
    assert {"rfc", "6749"} <= own_name_terms(own, tables)


def test_a_cover_title_block_id_is_the_documents_own():
    # SP 800-60 Vol. II (2008) prints "NIST Special Publication 800-60 Volume II" on its cover and
    # has no DOI line and no running id: the answer listed "SP 800-60" as a document outside
    # this PDF ("Relies on documents outside this PDF (named, not fetched): SP 800-60")
    from docintel.identifiers.own import own_ids

    cover = [
        (1, "body", "NIST Special Publication 800-60 Volume II Volume II: Appendices to"),
        (1, "body", "Revision 1"),
        (1, "body", "Guide for Mapping Types of Information"),
    ]
    body = [(p, "body", f"Body text of page {p}; see SP 800-53 and FIPS 199.") for p in range(2, 9)]
    assert own_ids(cover + body) == {"SP 800-60"}
    # a first page that cites a publication below its title block does not become it
    paper = [(1, "title", "A Fast Cipher"), *[(1, "body", f"Line {k} of the abstract.") for k in range(2, 8)]]
    paper += [(1, "body", "We follow FIPS 197 and RFC 2119 throughout.")]
    assert own_ids(paper + body) == set()
    # nor one a sentence of its first lines cites (test_loop's page: "Keys are generated as in SP 800-90 ...")
    short = [
        (1, "heading", "1 Overview"),
        (1, "body", "Keys are generated as in SP 800-90 when the key is new."),
    ]
    assert own_ids(short + body) == set()


def test_an_exhibit_ends_at_the_next_exhibit_whose_long_title_is_set_off():
    # s10's appendix region runs over page breaks and stopped at a next label line of 8 words at
    # most: the next exhibit in the body font with a long title ("EXHIBIT B - FORM OF ASSIGNMENT
    # AND ASSUMPTION AGREEMENT ...", 11 words) did not stop it, and Exhibit A's target ran into
    # Exhibit B (main stopped at the page's end)
    from docintel.retrieval.resolve import resolve_in_tables
    from tests.test_ref_families_s6 import Q, _ref, build_rows

    body = [
        (1, 1, "1. Definitions", "heading", "1"),
        (1, 2, "The fees are set forth in Exhibit A attached to this Agreement.", "body", "1"),
        (2, 1, "EXHIBIT A", "body", "1"),
        (2, 2, "Licence fee: USD 10,000 per year, payable in advance.", "body", "1"),
        (2, 3, "Exhibit A shall be attached to every copy of the Software delivered.", "body", "1"),
        (3, 1, "EXHIBIT B - FORM OF ASSIGNMENT AND ASSUMPTION AGREEMENT BETWEEN THE PARTIES", "body", "1"),
        (3, 2, "This Assignment is made between the Assignor and the Assignee named below.", "body", "1"),
    ]
    res = resolve_in_tables(
        _ref("Exhibit A", 1, 2), build_rows(body, [("1", "1", "Definitions", 1, None, 1, 1)]), question=Q
    )
    texts = [ln.text for p in res.passages for ln in p.lines]
    assert texts[0] == "EXHIBIT A"
    assert "Exhibit A shall be attached to every copy of the Software delivered." in texts  # a sentence
    assert not any("Assign" in t for t in texts)
