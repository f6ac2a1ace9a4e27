"""What the answer's character floor leaves goes to the target holding more of the question's
terms first (session 15, an): a target pulled in for a pointer written in passing must not keep
the text the asked target loses to the 4000-character clip."""

from __future__ import annotations

from docintel.generation.offline.compose import ANSWER_CHARS, compose, fair_shares
from docintel.generation.offline.pointers import Piece
from docintel.schema.evidence import EvidenceLine, Passage


def _piece(text: str, via: str, ref: str | None, origin: tuple[int, int] | None, hits: list[str]) -> Piece:
    ln = EvidenceLine(page=3, line=1, text=text)
    p = Passage(
        doc_id="d",
        page=3,
        line_start=1,
        line_end=1,
        lines=[ln],
        retrieved_via=via,
        reference_text=ref,
        referenced_from=origin,
    )
    return Piece(p, [ln], text, ln, {"hits": hits})


def test_fair_shares_gives_the_rest_in_the_order_asked():
    assert fair_shares([100, 100], 150, [1, 0]) == [50, 100]
    assert fair_shares([100, 100], 150) == [100, 50]


def test_the_target_holding_the_question_terms_keeps_its_text():
    first = [_piece(f"F{i} " * 370, "primary", None, None, ["record", "secur"]) for i in range(2)]
    passing = _piece("P " * 550, "reference", "Article 49(1)", (2, 16), ["control"])
    asked = _piece(
        "A " * 510 + "pseudonymisation", "reference", "Article 32(1)", (2, 20), ["measur", "secur", "process"]
    )
    text = compose([*first, passing, asked], [], [], [])
    assert len(text) <= ANSWER_CHARS
    assert "pseudonymisation" in text  # the asked target is given whole, the passing one is cut
