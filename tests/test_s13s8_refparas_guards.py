"""Session 13 (fxs): the guards that keep tables, notes, lists and chapters out of numbered-paragraph
targets, each with a case that resolves wrongly without its guard (a review found NIST tables of
numbered rows taken for articles, and guard tests that could not fail)."""

from __future__ import annotations

import pandas as pd

from docintel.retrieval.resolve import resolve_in_tables
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.tables import TABLES

Q = ParsedQuestion(text="")


def build(pages: list[list[tuple]]) -> DocTables:
    """Pages of (text, role, x0, size) lines (role, x0, size optional)."""
    lines = []
    for p, rows in enumerate(pages):
        for k, row in enumerate(rows):
            text, role, x0, size = (*row, *("", "body", 72.0, 11.0)[len(row) :])
            lines.append({"page": p + 1, "line": k + 1, "text": text, "role": role, "x0": x0, "size": size})
    frame = {"line_df": lines, "page_df": [{"page": p + 1} for p in range(len(pages))]}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if frame.get(n) else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id="d", **built)


def _ref(raw: str, page: int, line: int) -> PendingReference:
    return PendingReference(raw_text=raw, ref_type="unknown", origin_page=page, origin_line=line)


def _text(res) -> str:
    return " ".join(ln.text for p in res.passages for ln in p.lines)


def _article(n: int, title: str) -> list[tuple]:
    return [
        (f"{n}. {title}",),
        (f"The parties agree to the terms of article {n} as set out here",),
        ("and in full.",),
    ]


def test_a_table_of_numbered_rows_is_no_article_run():
    rows = []
    for n, name in enumerate(["Purpose", "Introduction", "Definitions", "Model", "Risk Management"], 1):
        # the first column's cell wraps onto two lines the parser left as body text
        rows += [(f"{n}. {name}", "table"), ("of the document and its", "body"), ("several parts", "body")]
    doc = [[("See Section 5 for more.",)], [("The following table states which are normative:",), *rows]]
    assert resolve_in_tables(_ref("Section 5", 1, 1), build(doc), question=Q).status != "resolved"


def test_numbered_rows_with_a_second_column_are_no_article_run():
    # the same matrix without table roles: the row's other cells sit far right of its number
    rows = []
    for n, name in enumerate(
        ["Initiate Planning", "Categorize", "Assess Impact", "Assess Privacy", "Ensure"], 1
    ):
        rows += [(f"{n}. {name}", "list_item", 77.0), ("SP 800-64, -100", "body", 338.0)]
        rows += [("FIPS 199", "body", 338.0), ("SP 800-37", "body", 338.0)]
    doc = [[("the Act (Section 5) applies.",)], [("Phase 1",), *rows]]
    assert resolve_in_tables(_ref("Section 5", 1, 1), build(doc), question=Q).status != "resolved"


def test_the_last_item_of_a_list_does_not_run_into_the_prose_after_it():
    items = [(f"{n}. Category number {n} of harm;", "list_item", 90.0) for n in range(1, 7)]
    after = [("Required assurance levels are determined by assessing the potential",), ("impact of each.",)]
    doc = [[("See Section 6 of the guide.",), ("Categories of harm include:",), *items, *after]]
    assert resolve_in_tables(_ref("Section 6", 1, 1), build(doc), question=Q).status != "resolved"


def test_a_number_after_a_restart_does_not_join_the_first_list():
    # "1. 2." then another list's "1." then "3.": the "3." has no run of three behind it
    doc = [[("As Section 3 provides.",)]]
    doc.append([*_article(1, "Alpha"), *_article(2, "Beta"), *_article(1, "Gamma"), *_article(3, "Delta")])
    assert resolve_in_tables(_ref("Section 3", 1, 1), build(doc), question=Q).status != "resolved"


def test_a_list_that_restarts_is_another_list():
    # list A "1. 2." then list B "1. 2. 3.": A's "2." is no run of three (it chained to B's "3.")
    a = [
        *_article(1, "Alpha rules"),
        ("2. Beta rules of the first list",),
        ("first list text", "body"),
        ("more.",),
    ]
    b = [*_article(1, "Gamma"), ("2. Delta of the second list",), ("second list text here",), ("more.",)]
    b += _article(3, "Epsilon")
    doc = [a, b, [("As Section 2 provides.",)]]
    res = resolve_in_tables(_ref("Section 2", 3, 1), build(doc), question=Q)
    assert res.status == "resolved"
    assert "second list text" in _text(res) and "first list text" not in _text(res)


def test_a_reference_inside_the_paragraph_it_names_is_not_resolved_to_it():
    doc = [
        [*_article(1, "Scope"), ("2. Term",), ("This agreement lasts as Section 2 says,",), ("until ended.",)]
    ]
    doc[0] += _article(3, "Law")
    assert resolve_in_tables(_ref("Section 2", 1, 5), build(doc), question=Q).status != "resolved"


def test_equal_runs_prefer_the_titled_article_to_the_definition():
    # a definitions list "1. 2. 3." of several-line sentences beside the articles "1. 2. 3.":
    # the article's title line wins the tie
    defs = [
        ("2. Source code means the human-readable form of the Work which is the most convenient",),
        ("format for people to study and modify, and includes",),
        ("all of its files.",),
        ("3. Executable code means any code which has generally been compiled and which is",),
        ("meant to be interpreted by a computer as a program,",),
        ("and nothing else.",),
    ]
    doc = [[*_article(1, "Definitions"), *defs, *_article(2, "Scope of the rights"), *_article(3, "Law")]]
    doc.append([("rights granted by Article 2 of this Licence.",)])
    res = resolve_in_tables(_ref("Article 2", 2, 1), build(doc), question=Q)
    assert res.status == "resolved"
    assert "Scope of the rights" in _text(res) and "Source code means" not in _text(res)


def test_notes_written_with_a_delimiter_are_no_articles():
    notes = []
    for n in range(1, 6):
        notes += [(f"{n}. Author {n}, Title of a book, Press,", "footnote"), ("at page twelve and after.",)]
        notes += [("See also the index.",)]
    doc = [[("The constitution declared it (article 5) and more.",), *notes]]
    assert resolve_in_tables(_ref("article 5", 1, 1), build(doc), question=Q).status != "resolved"


def test_small_print_notes_are_no_articles():
    notes = []
    for n in range(1, 6):
        notes += [(f"{n}. Author {n}, Title of a book, Press,", "body", 72.0, 8.0)]
        notes += [("at page twelve and after.", "body", 72.0, 8.0), ("See the index.", "body", 72.0, 8.0)]
    body = [(f"Body text line {k} of the report in the usual size.",) for k in range(20)]
    doc = [[("The constitution declared it (article 5) and more.",), *body, *notes]]
    assert resolve_in_tables(_ref("article 5", 1, 1), build(doc), question=Q).status != "resolved"


def test_a_chapter_is_never_a_numbered_paragraph():
    doc = [[*_article(1, "Scope"), *_article(2, "Term"), *_article(3, "Law"), *_article(4, "End")]]
    doc.append([("as Chapter 3 provides.",)])
    assert resolve_in_tables(_ref("Chapter 3", 2, 1), build(doc), question=Q).status != "resolved"
    # the same run is followed for a section: the guard, not the run, turns the chapter away
    assert resolve_in_tables(_ref("Section 3", 2, 1), build(doc), question=Q).status == "resolved"


def test_a_bare_appendix_line_beside_lettered_ones_is_not_the_appendix():
    doc = [
        [("The licences are listed in the appendix attached.",), ("Appendix",), ("A list of licences.",)],
        [("Appendix A - Definitions",), ("Terms.",)],
    ]
    assert resolve_in_tables(_ref("the appendix", 1, 1), build(doc), question=Q).status != "resolved"
    doc[1][0] = ("Definitions",)
    assert resolve_in_tables(_ref("the appendix", 1, 1), build(doc), question=Q).status == "resolved"
