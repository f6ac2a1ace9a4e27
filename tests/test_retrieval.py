"""Retrieval: page ranking signals, scope, furniture, image-only pages, passages and token counts."""

from __future__ import annotations

import pandas as pd
import pytest

from docintel.questions import parse_question
from docintel.retrieval import (
    best_passage,
    count_tokens,
    page_passage,
    resolve_scope,
    retrieve,
    section_ranges,
    suggested_top_k,
    top_pages_baseline,
)
from docintel.schema.document import DocTables
from docintel.schema.evidence import Scope
from docintel.schema.tables import CELL_DF, CROSS_REF_DF, LINE_DF, OBJECT_REGISTRY, PAGE_DF, TOC_DF

from .conftest import PDFS

DOC = "0123456789abcdef"
FILLER = [
    "The committee met in the spring to review the annual budget.",
    "Several members asked for more time to read the proposals.",
    "Coffee was served in the hall after the meeting.",
]


def make_tables(
    pages: dict[int, list],
    *,
    toc: list[dict] | None = None,
    labels: dict[int, str] | None = None,
    registry: list[dict] | None = None,
) -> DocTables:
    """DocTables from {page: [text | (text, role), ...]}; a page with [] has no text (image-only)."""
    rows = []
    for page, lines in pages.items():
        for i, item in enumerate(lines, start=1):
            text, role = (item, "body") if isinstance(item, str) else item
            rows.append(
                {"doc_id": DOC, "page": page, "line": i, "text": text, "role": role, "x0": 50.0,
                 "y0": 10.0 * i, "x1": 500.0, "y1": 10.0 * i + 8}
            )  # fmt: skip
    page_rows = [
        {"doc_id": DOC, "page": p, "printed_label": (labels or {}).get(p), "has_text_layer": bool(lines),
         "image_only": not lines, "n_lines": len(lines)}
        for p, lines in pages.items()
    ]  # fmt: skip
    return DocTables(
        doc_id=DOC,
        line_df=LINE_DF.conform(pd.DataFrame(rows)),
        page_df=PAGE_DF.conform(pd.DataFrame(page_rows)),
        toc_df=TOC_DF.conform(pd.DataFrame(toc)) if toc else TOC_DF.empty(),
        object_registry=OBJECT_REGISTRY.conform(pd.DataFrame(registry))
        if registry
        else OBJECT_REGISTRY.empty(),
        cell_df=CELL_DF.empty(),
        cross_ref_df=CROSS_REF_DF.empty(),
    )


def ranked(question: str, tables: DocTables, **kw) -> list[int]:
    return [c.page for c in retrieve(parse_question(question), tables, **kw)]


def test_keyword_page_wins_and_every_page_is_a_candidate():
    tables = make_tables(
        {
            1: FILLER,
            2: [*FILLER, "Positional encodings use sine and cosine functions of different frequencies."],
            3: FILLER,
        }
    )
    cands = retrieve(parse_question("Which functions do the positional encodings use?"), tables)
    assert [c.page for c in cands][0] == 2
    assert sorted(c.page for c in cands) == [1, 2, 3]
    assert [c.chosen for c in cands] == [True, False, False]
    assert cands[0].scores["bm25"] == 1.0 and cands[0].score > cands[1].score
    assert any("posit" in r for r in cands[0].reasons)


def test_top_k_marks_that_many_and_ties_break_by_page_number():
    same = ["Hash functions compress messages."]
    tables = make_tables({4: same, 2: same, 3: same, 1: FILLER})
    cands = retrieve(parse_question("What do hash functions do?"), tables, top_k=2)
    assert [c.page for c in cands] == [2, 3, 4, 1]
    assert [c.chosen for c in cands] == [True, True, False, False]
    # Deterministic: the same call gives the same ranking.
    assert [c.page for c in retrieve(parse_question("What do hash functions do?"), tables)] == [2, 3, 4, 1]


def test_furniture_lines_neither_rank_nor_reach_the_passage():
    header = ("Randomized Hashing for Digital Signatures", "header")
    tables = make_tables(
        {
            1: [header, *FILLER, ("Randomized hashing digital signatures 7", "footer")],
            2: [header, "A signer randomizes the message before hashing it.", ("8", "page_number")],
        }
    )
    cands = retrieve(parse_question("What does randomized hashing do to digital signatures?"), tables)
    assert cands[0].page == 2
    assert cands[1].scores["bm25"] == 0.0  # page 1 matched only in its header and footer
    passage = page_passage(tables, 2)
    assert [ln.text for ln in passage.lines] == ["A signer randomizes the message before hashing it."]
    assert (passage.line_start, passage.line_end) == (2, 2)


def test_image_only_page_is_never_chosen_unless_nothing_else():
    tables = make_tables({1: FILLER, 2: [], 3: ["The budget review ends in spring."]})
    cands = retrieve(parse_question("When does the budget review end?"), tables)
    assert cands[-1].page == 2 and not cands[-1].chosen
    assert "no text" in cands[-1].reasons[0]
    blank = make_tables({1: [], 2: []})
    only = retrieve(parse_question("When does the budget review end?"), blank)
    assert [c.page for c in only] == [1, 2] and only[0].chosen


def test_phrase_signal_prefers_the_page_with_the_words_together():
    tables = make_tables(
        {
            1: [
                "The learned model was slow.",
                "Positional information was lost.",
                "We use embeddings of words.",
            ],
            2: [
                "We compared learned positional embeddings with the sinusoidal version.",
                "Results were close.",
            ],
        }
    )
    cands = retrieve(parse_question("How did learned positional embeddings compare?"), tables)
    assert cands[0].page == 2
    assert cands[0].scores["phrase"] == 1.0 and cands[1].scores["phrase"] == 0.0


def test_toc_title_boosts_the_pages_of_its_range_with_page_end_filled():
    toc = [
        {"doc_id": DOC, "toc_id": "1", "title": "Introduction", "level": 1, "page_start": 1},
        {"doc_id": DOC, "toc_id": "2", "title": "Glossary of Symbols", "level": 1, "page_start": 2},
        {"doc_id": DOC, "toc_id": "2.1", "title": "Operators", "level": 2, "page_start": 3},
        {"doc_id": DOC, "toc_id": "3", "title": "Results", "level": 1, "page_start": 4},
    ]
    tables = make_tables({1: FILLER, 2: FILLER, 3: FILLER, 4: FILLER}, toc=toc)
    ranges = section_ranges(tables).set_index("toc_id")
    assert (ranges.loc["2", "page_start"], ranges.loc["2", "page_end"]) == (2, 4)  # to the next level-1 start
    assert ranges.loc["3", "page_end"] == 4  # last section runs to the last page
    cands = retrieve(parse_question("Where is the glossary of symbols?"), tables)
    assert {c.page for c in cands if c.scores["toc"] == 1.0} == {2, 3, 4}
    assert cands[0].page == 2 and "Glossary of Symbols" in " ".join(cands[0].reasons)


def test_on_page_8_maps_through_printed_labels_then_falls_back_to_physical():
    pages = {p: FILLER for p in range(1, 14)}
    labelled = make_tables(pages, labels={p: str(p - 4) for p in range(5, 14)})
    cands = retrieve(parse_question("What is said on page 8 about the budget?"), labelled)
    assert cands[0].page == 12 and cands[0].scores["scope"] == 1.0
    assert "physical page 12" in " ".join(cands[0].reasons)
    unlabelled = make_tables(pages)
    assert ranked("What is said on page 8 about the budget?", unlabelled)[0] == 8
    assert resolve_scope(Scope(kind="page", target="99", text="page 99"), unlabelled) == ([], "")


def test_table_scope_uses_the_registry_then_caption_lines():
    pages = {1: FILLER, 2: [*FILLER, "Table 2: Budget per committee"], 3: FILLER, 4: FILLER}
    registry = [
        {"doc_id": DOC, "object_key": "table:2", "object_type": "table", "object_id": "2", "label": "Table 2",
         "page": 3, "page_end": 4, "source": "caption"}
    ]  # fmt: skip
    with_registry = make_tables(pages, registry=registry)
    assert resolve_scope(Scope(kind="table", target="2", text="Table 2"), with_registry)[0] == [3, 4]
    assert ranked("What does Table 2 show?", with_registry)[:2] == [3, 4]
    without = make_tables(pages)
    assert ranked("What does Table 2 show?", without)[0] == 2


def test_section_and_clause_scopes_resolve_against_toc():
    toc = [
        {"doc_id": DOC, "toc_id": "3", "number": "3", "title": "Method", "level": 1, "page_start": 2},
        {"doc_id": DOC, "toc_id": "3.1", "number": "3.1", "title": "Setup", "level": 2, "page_start": 3},
        {"doc_id": DOC, "toc_id": "(q)", "number": "(q)", "title": "Related Information", "level": 2,
         "page_start": 5, "page_end": 5},
    ]  # fmt: skip
    tables = make_tables({p: FILLER for p in range(1, 6)}, toc=toc)
    assert resolve_scope(Scope(kind="section", target="3.1", text="Section 3.1"), tables)[0] == [3, 4, 5]
    assert resolve_scope(Scope(kind="clause", target="(q)(1)", text="paragraph (q)(1)"), tables)[0] == [5]
    assert ranked("What does paragraph (q)(1) say about the budget?", tables)[0] == 5


def test_unresolved_scope_still_searches_its_words():
    tables = make_tables({1: FILLER, 2: ["Parameters were tuned on Section 22 of the treebank."]})
    cands = retrieve(parse_question("Which data came from Section 22?"), tables)
    assert cands[0].page == 2 and cands[0].scores["scope"] == 0.0


def test_definition_question_prefers_where_the_term_is_introduced():
    tables = make_tables(
        {
            1: ["The maneuvering characteristics augmentation system (MCAS) trims the stabilizer."],
            2: [
                "MCAS activation is limited.",
                "MCAS commands are bounded.",
                "MCAS is re-armed after landing.",
            ],
        }
    )
    cands = retrieve(parse_question("What is MCAS?"), tables)
    assert cands[0].page == 1 and cands[0].scores["definition"] == 1.0


def test_best_passage_narrows_a_long_page_to_the_answer_window():
    long_page = [f"Routine remark number {i} about the weather." for i in range(1, 201)]
    long_page[149] = "The random value rv shall be at least 80 bits long."
    tables = make_tables({1: long_page, 2: FILLER})
    q = parse_question("How long must the random value rv be?")
    passage = best_passage(tables, q, 1, max_tokens=120)
    assert passage.line_start <= 150 <= passage.line_end
    assert count_tokens(passage.text) <= 120
    assert passage.lines[0].page == 1 and passage.retrieved_via == "primary"
    assert "best match" in passage.note
    forced = best_passage(tables, q, 1, max_tokens=120, include_lines=[10])
    assert forced.line_start <= 10 <= forced.line_end
    assert best_passage(tables, q, 2).line_end == len(FILLER)  # a short page is kept whole


def test_page_passage_line_range_and_provenance():
    tables = make_tables({1: FILLER})
    p = page_passage(tables, 1, line_start=2, line_end=3, retrieved_via="reference", referenced_from=(5, 7))
    assert [ln.line for ln in p.lines] == [2, 3]
    assert p.retrieved_via == "reference" and p.referenced_from == (5, 7)
    assert p.text == "\n".join(FILLER[1:3])


def test_count_tokens_counts_words_and_punctuation():
    assert count_tokens("") == 0
    assert count_tokens("Hello, world!") == 4
    assert count_tokens("ﬁne") == 1  # ligature normalised, one word


def test_top_pages_baseline_is_three_whole_pages():
    tables = make_tables({1: FILLER, 2: ["Budget numbers grew."], 3: ["The numbers grew."], 4: FILLER})
    base = top_pages_baseline(tables, parse_question("How did the budget numbers grow?"))
    assert [p.page for p in base][:2] == [2, 3] and len(base) == 3
    assert all(p.retrieved_via == "baseline" for p in base)


@pytest.fixture(scope="module")
def nist(tmp_path_factory) -> DocTables:
    from docintel.api import parse

    # layout="never": the fast text path is all these tests need, and it keeps the file quick.
    return parse(PDFS / "nist_sp800-106.pdf", layout="never", out_dir=tmp_path_factory.mktemp("art"))


def test_bundled_pdf_exclusive_or_question_finds_the_symbols_page(nist):
    cands = retrieve(parse_question("What does the exclusive-or symbol mean?"), nist)
    text = nist.page_text(cands[0].page)
    assert "Symbols" in text and "Exclusive-Or" in text.replace("exclusive-or", "Exclusive-Or")
    passage = best_passage(nist, parse_question("What does the exclusive-or symbol mean?"), cands[0].page)
    assert "xclusive-" in passage.text


def test_bundled_pdf_section_scope_lands_in_the_section(nist):
    cands = retrieve(parse_question("What does Section 3.3 say about reusing rv?"), nist)
    assert cands[0].scores["scope"] == 1.0
    assert "The Random Value" in "\n".join(
        nist.page_text(p) for p in range(cands[0].page - 1, cands[0].page + 1)
    )


def test_listing_question_boosts_pages_with_the_listed_objects_and_suggests_top_k():
    tables = make_tables(
        {
            1: FILLER,
            2: ["Table 1: Budget per committee", *FILLER],
            3: FILLER,
            4: ["Table 2. Members per committee"],
        }
    )
    q = parse_question("How many tables are there, and what does each one report?")
    assert q.shape == "list"
    cands = retrieve(q, tables, top_k=suggested_top_k(q, tables))
    assert {c.page for c in cands if c.chosen} == {2, 4}
    assert all(c.scores["objects"] == 1.0 for c in cands if c.chosen)
    assert suggested_top_k(parse_question("What does Table 1 report?"), tables) == 1
