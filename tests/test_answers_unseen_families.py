"""Session 7 rules for answers on unseen document families: the offline answer's text shares
its length fairly and labels a reference's pieces once, a long pulled-in target is read with
the words of the sentence that pointed at it, a container answered by the pointer beside it
is not "heading only", and a provision label no unit of the document carries is reported, not
a reason for "partial"."""

from __future__ import annotations

from docintel.generation.completeness import completeness_reasons
from docintel.generation.offline import OfflineBackend
from docintel.generation.offline.compose import ANSWER_CHARS, compose, fair_shares
from docintel.generation.offline.pointers import Piece
from docintel.schema.answer import Citation, PendingReference, ReferenceAwareAnswer
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.schema.loop import Resolution

from . import test_loop as loop_fixtures
from .test_loop import answer, passage, pending, run  # noqa: F401 - the fixture

# -- the answer's text ---------------------------------------------------------------------


def test_fair_shares_keep_short_texts_and_shorten_the_last_long_one():
    assert fair_shares([100, 200], 1000) == [100, 200]  # everything fits
    shares = fair_shares([900, 900, 900, 50], 1000)
    assert sum(shares) <= 1000 and shares[3] == 50  # a short one is never dropped
    assert shares[0] >= shares[1] >= shares[2] >= 1000 // 8  # in order, each over a floor


def _lines(page: int, texts: list[str], first: int = 1) -> list[EvidenceLine]:
    return [EvidenceLine(page=page, line=first + i, text=t) for i, t in enumerate(texts)]


def _pulled(page: int, texts: list[str]) -> Passage:
    lines = _lines(page, texts)
    return Passage(doc_id="d", page=page, line_start=1, line_end=len(texts), lines=lines,
                   retrieved_via="reference", reference_text="Section 5", referenced_from=(1, 3))  # fmt: skip


def _piece(p: Passage) -> Piece:
    return Piece(p, p.lines, " ".join(ln.text for ln in p.lines), p.lines[0], {"hits": ["x"]})


def test_pieces_of_one_reference_share_one_label_and_a_late_target_is_not_cut_off():
    first = Passage(doc_id="d", page=1, line_start=1, line_end=1, lines=_lines(1, ["word " * 230]))
    targets = [_pulled(p, [f"target {p} " + "text " * 150 + f"END{p}"]) for p in (6, 7, 8)]
    text = compose([_piece(first), *(_piece(t) for t in targets)], [], [], [])
    assert len(text) <= ANSWER_CHARS
    assert text.count("From Section 5") == 1 and "pages 6, 7, 8" in text
    assert "target 8" in text  # the last target keeps its opening, though the whole is too long


# -- a long target read with the pointing sentence's words --------------------------------


def test_a_long_target_is_read_with_the_words_of_the_pointing_sentence():
    origin = Passage(doc_id="d", page=1, line_start=1, line_end=3, lines=_lines(1, [
        "The message is randomized.", "It uses the bitwise exclusive-or operation,",
        "which is defined in Section 5."]))  # fmt: skip
    filler = [f"Filler sentence number {i} about messages." for i in range(30)]
    target = _pulled(5, [*filler[:20], "The exclusive-or of two bits is 1 when they differ.", *filler[20:]])
    q = ParsedQuestion(text="How is the message randomized?", keywords=["message", "randomized"])
    gen = OfflineBackend().generate(q, [origin, target], pass_no=2, instructions=[])
    assert "exclusive-or of two bits" in gen.answer.answer


# -- completeness labels -------------------------------------------------------------------


def _res(raw: str, line: int, lines: list[EvidenceLine]) -> Resolution:
    ref = PendingReference(raw_text=raw, ref_type="unknown", origin_page=2, origin_line=line)
    p = Passage(
        doc_id="d", page=lines[0].page, line_start=lines[0].line, line_end=lines[-1].line, lines=lines
    )
    return Resolution(ref, "resolved", "toc", "appendix", target=raw, passages=[p])


def test_a_container_answered_by_the_pointer_beside_it_is_not_heading_only():
    heading = [EvidenceLine(page=9, line=1, text="Appendix D Threat sources", role="heading")]
    table = [EvidenceLine(page=10, line=4, text="Table D-2: Taxonomy of threat sources"),
             EvidenceLine(page=10, line=5, text="Adversarial: outsider, insider")]  # fmt: skip
    cited = [Citation(page=10, line_start=4, line_end=5, quote="Table D-2: Taxonomy of threat sources")]
    ans = ReferenceAwareAnswer(
        answer="Use the taxonomy of Table D-2.", citations=cited, answer_completeness="complete"
    )
    alone = completeness_reasons(ans, [_res("Appendix D", 3, heading)])
    assert [r.code for r in alone] == ["target_heading_only"]
    beside = [_res("Appendix D", 3, heading), _res("Table D-2", 5, table)]
    assert completeness_reasons(ans, beside) == []
    far = [_res("Appendix D", 3, heading), _res("Table D-2", 30, table)]
    assert [r.code for r in completeness_reasons(ans, far)] == ["target_heading_only"]


def test_a_provision_no_unit_of_the_document_carries_is_reported_not_partial(run):  # noqa: F811
    a1 = answer(completeness="references_unresolved", pending_references=[pending("Art. I", 2, "section")])
    result, fake, _ = run([passage(1, 1, 5)], a1)
    (u,) = result.unresolved
    assert u.raw_text == "Art. I" and "no unit of this document" in u.reason
    assert result.answer.answer_completeness == "complete" and len(fake.calls) == 1
    assert any("Art. I" in w for w in result.warnings)


def test_a_decimal_provision_of_another_part_is_named_external(run):  # noqa: F811
    # "§ 1316.47": the fixture numbers no unit with part 1316, so the resolver reads it as
    # another document's (``refparts``) and the answer names it, complete, without a second pass
    a1 = answer(completeness="references_unresolved", pending_references=[pending("§ 1316.47", 2, "section")])
    result, fake, _ = run([passage(1, 1, 5)], a1)
    assert not result.unresolved and len(fake.calls) == 1
    assert result.answer.answer_completeness == "complete"
    assert any("1316.47" in e.name for e in result.answer.external_references)


def test_a_section_the_toc_numbers_is_not_called_another_instruments(run):  # noqa: F811
    # "Section 2.9": the toc numbers a section 2, so the miss is the resolver's, not the document's
    assert loop_fixtures.DOC
    a1 = answer(
        completeness="references_unresolved", pending_references=[pending("Section 2.9", 2, "section")]
    )
    result, _, _ = run([passage(1, 1, 5)], a1)
    assert result.answer.answer_completeness == "partial"


# -- questions in other languages ----------------------------------------------------------


def test_a_spanish_question_searches_its_content_words_not_its_articles():
    from docintel.questions import parse_question

    q = parse_question("¿Cuándo debe el empleador completar y firmar la Sección 2?")
    assert {"el", "la", "debe", "cuándo"}.isdisjoint(q.keywords)
    assert {"empleador", "firmar"} <= set(q.keywords)
    assert all(" el " not in f" {p} " for p in q.phrases)


def test_an_english_question_keeps_a_word_one_other_language_shares():
    from docintel.questions import parse_question

    q = parse_question("What does the La Jolla station report?")
    assert {"la", "jolla", "station"} <= set(q.keywords)  # one Spanish word does not make it Spanish


def test_citations_are_shared_round_robin_so_a_long_table_does_not_crowd_out_targets():
    from docintel.generation.offline.backend import _fair_citations

    def cites(page: int, n: int) -> list[Citation]:
        return [Citation(page=page, line_start=i, line_end=i, quote=f"row {i}") for i in range(1, n + 1)]

    picked = _fair_citations([cites(1, 2), cites(5, 30), cites(9, 3)], 6)
    assert [(c.page, c.line_start) for c in picked] == [(1, 1), (1, 2), (5, 1), (5, 2), (9, 1), (9, 2)]
    assert len(_fair_citations([cites(1, 30)], 20)) == 20


# -- the text's notes on pointers not followed, after the triage -----------------------------


def test_a_pointer_the_triage_settles_leaves_the_not_followed_note():
    from docintel.generation.offline.compose import restate

    a, b = pending("Clause 5.6", 34, "clause", page=4), pending("Table 2", 9, "table", page=7)
    text = (
        "From page 4: the Recipient shall ...\n"
        "Not yet followed: Clause 5.6 (page 4, line 34); Table 2 (page 7, line 9); "
        "the complete answer may be there."
    )
    one = restate(text, [a])
    assert one.endswith("Not yet followed: Table 2 (page 7, line 9); the complete answer may be there.")
    assert "Clause 5.6" not in one
    assert restate(text, [a, b]) == "From page 4: the Recipient shall ..."
    assert restate(text, []) == text
    nested = (
        "From page 4: x\nFurther pointers in the pulled-in text, not followed: Clause 5.6 (page 4, line 34)."
    )
    assert restate(nested, [a]) == "From page 4: x"


def test_the_loop_restates_a_backend_text_after_its_triage(run):  # noqa: F811
    # "§ 1316.47" is settled by the triage (another document's, named external): a backend whose
    # text lists the pointers it left is asked to take it out of its "not yet followed" note
    from docintel.generation.backends.fakes import FakeBackend
    from docintel.generation.offline.compose import restate

    class Restating(FakeBackend):
        def restate(self, text, settled):
            return restate(text, settled)

    text = (
        "The rule applies.\nNot yet followed: § 1316.47 (page 1, line 2); the complete answer may be there."
    )
    a1 = answer(text, "references_unresolved", pending_references=[pending("§ 1316.47", 2, "section")])
    result, _, _ = run([passage(1, 1, 5)], a1, backend=Restating([a1]))
    assert result.answer.answer_completeness == "complete"
    assert result.answer.answer.startswith("The rule applies.")
    assert "Not yet followed" not in result.answer.answer
    plain, _, _ = run([passage(1, 1, 5)], a1)  # a backend without it keeps its own text
    assert "Not yet followed" in plain.answer.answer
