"""Session 12 (fxc): review fixes to the corpus answer's pass 1 (cs). A merged first-hop passage
that crosses a page break keeps the span of its first page; see NOTES.md."""

from __future__ import annotations

from docintel.corpus.single import merge_overlapping
from docintel.generation.offline import OfflineBackend
from docintel.schema.evidence import EvidenceLine, Passage


def _cross(lines: list[tuple[int, int]], note: str) -> Passage:
    """A passage as extend_to_sentence_end leaves it: lines may run onto the next page, the span
    names the lines of its own (first) page only."""
    ev = [EvidenceLine(page=pg, line=n, text=f"p{pg} l{n}", role="body") for pg, n in lines]
    own = [n for pg, n in lines if pg == lines[0][0]]
    return Passage(doc_id="d", page=lines[0][0], line_start=own[0], line_end=own[-1], lines=ev, note=note)


def test_a_merged_passage_across_a_page_break_keeps_its_first_page_span():
    a = _cross([(3, n) for n in range(40, 47)] + [(4, 1), (4, 2)], "a")  # continued onto p4
    b = _cross([(3, n) for n in range(44, 48)], "b")  # overlaps a on p3
    c = _cross([(4, n) for n in range(1, 9)], "c")  # overlaps a's carried-over lines
    ab = merge_overlapping([a, b])[0]
    assert (ab.page, ab.line_start, ab.line_end) == (3, 40, 47)
    assert (4, 2) in {(ln.page, ln.line) for ln in ab.lines}  # the carried-over lines stay read
    ac = merge_overlapping([a, c])[0]
    assert (ac.page, ac.line_start, ac.line_end) == (3, 40, 46)
    assert [(ln.page, ln.line) for ln in ac.lines][-1] == (4, 8)


#: The first block names the question's words in three sentences (each as strong as the answer's,
#: and read first: page order breaks the tie); the sentence that answers sits in a second block
#: on the next page. Under the one-passage budget (3 windows) the first block takes every window.
_FILL = "\n".join(["Staff meet on Mondays to plan the week.", "The meeting room is on the second floor."])
HANDLING = {
    "cover": ["NIST Special Publication 800-908", "Incident Records Guide"],
    "sections": [
        (
            "1 Incident records",
            "\n".join(
                f"The office of desk {k} keeps closed incident records of kind {k}.\n{_FILL}"
                for k in ("A", "B", "C")
            ),
        ),
        ("2 Archive", f"{_FILL}\nThe archive office in Denver keeps closed incident records.\n{_FILL}"),
    ],
}
HANDLING_Q = "Which office keeps the closed incident records?"


def _handling_tables(tmp_path):
    import json

    from docintel.corpus import Corpus
    from docintel.corpus.paths.search import _load_tables
    from tests.corpus_fixtures import make_pdf

    folder = tmp_path / "in"
    folder.mkdir()
    make_pdf(folder / "records.pdf", HANDLING)
    (folder / "g.json").write_text(
        json.dumps({"documents": {"records.pdf": ["public"]}, "users": {"analyst": ["public"]}})
    )
    opts = {"layout": "never", "ocr": "never"}
    Corpus.ingest(tmp_path / "store", [folder], groups_file=folder / "g.json", parse_options=opts)
    c = Corpus(tmp_path / "store")
    return _load_tables(c, c.store.readable_documents("analyst").iloc[0])


def test_a_lower_ranked_first_hop_block_holding_the_answer_is_quoted(tmp_path, monkeypatch):
    """The first block is read first and, under the single-document budget, takes every window;
    the second block, which answers as strongly, must be quoted too."""
    from docintel.corpus.single import ask_document

    for name in ("DOCINTEL_BACKEND", "DOCINTEL_MODEL", "DOCINTEL_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    tables = _handling_tables(tmp_path)
    ln = tables.line_df
    first = ln[ln["text"].str.contains("of kind")]
    answer = ln[ln["text"].str.contains("Denver")]
    assert len(first) == 3 and len(answer) == 1  # the fixture is what the test is about
    page = int(first["page"].iloc[0])
    spans = [
        (page, int(first["line"].min()), int(first["line"].max()) + 2),
        (int(answer["page"].iloc[0]), int(answer["line"].iloc[0]), int(answer["line"].iloc[0])),
    ]
    res = ask_document(tables, HANDLING_Q, first_hop=spans)
    assert "Denver" in res.answer.answer, res.answer.answer


def _recording(monkeypatch, pending_when_grown: list[str]):
    """OfflineBackend.generate replaced by one that records the budget it ran with and names
    ``pending_when_grown`` as pending pointers when that budget is above the default."""
    from types import SimpleNamespace

    calls: list[int] = []
    default = OfflineBackend().max_windows

    def generate(self, question, passages, *, pass_no, instructions):
        calls.append(self.max_windows)
        names = pending_when_grown if self.max_windows > default else []
        refs = [SimpleNamespace(raw_text=n) for n in names]
        return SimpleNamespace(
            answer=SimpleNamespace(pending_references=refs),
            info=SimpleNamespace(details={}),
            budget=self.max_windows,
        )

    monkeypatch.setattr(OfflineBackend, "generate", generate)
    for name in ("DOCINTEL_BACKEND", "DOCINTEL_MODEL", "DOCINTEL_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return calls, default


def test_the_grown_budget_gives_way_once_targets_are_pulled_in(monkeypatch):
    from docintel.corpus.single import _budgeted

    calls, default = _recording(monkeypatch, [])
    backend = _budgeted(None, 3)
    first = _cross([(2, 1), (2, 2)], "first hop")
    target = first.model_copy(update={"retrieved_via": "reference", "note": "pulled in"})
    assert backend.generate(None, [first], pass_no=1, instructions=[]).budget == default + 2
    assert backend.generate(None, [first, target], pass_no=2, instructions=[]).budget == default
    assert calls == [default + 2, default]


def test_extra_windows_that_open_new_pointers_give_way_to_the_single_document_answer(monkeypatch):
    from docintel.corpus.single import _budgeted

    first = _cross([(2, 1), (2, 2)], "first hop")
    _recording(monkeypatch, ["Section 6"])
    out = _budgeted(None, 3).generate(None, [first], pass_no=1, instructions=[])
    assert out.budget == OfflineBackend().max_windows  # the plain answer, with no new pointer
    # and the call record says which budget answered and why (no silent fallback)
    assert out.info.details["first_hop_budget"] == {"used": "single", "new_pointers": ["Section 6"]}
