"""Session 16 (an): the answer text and ``external_references`` agree on the document's own id.

Set 10's SP 800-60 Vol. II question: the offline answer's note "Relies on documents outside this
PDF (named, not fetched): SP 800-60" was written by the backend before the loop's triage found
SP 800-60 to be the document's own id (its title block) and dropped it from the list; the text
kept naming the document as an outside one."""

from __future__ import annotations

from docintel import decide
from docintel.generation.offline.backend import OfflineBackend
from docintel.questions import parse_question
from docintel.schema.trace import Trace
from tests.test_ref_families_s6 import build

_NOTE = "Relies on documents outside this PDF (named, not fetched): "


def _publication():
    cover = ["NIST Special Publication 800-99 Volume II", "Guide for Mapping Widget Types", "Jane Roe"]
    lines = [{"page": 1, "line": k, "text": t, "role": "body"} for k, t in enumerate(cover, 1)]
    body = [
        "The widget catalogue of SP 800-99 lists every widget type by its family.",
        "Each widget family is mapped to one impact level as FIPS 199 requires.",
        "Body text of the page with no further widget detail.",
    ]
    lines += [{"page": 2, "line": k, "text": t, "role": "body"} for k, t in enumerate(body, 1)]
    lines += [{"page": p, "line": 1, "text": f"Body text of page {p}.", "role": "body"} for p in (3, 4)]
    return build(lines, [])


def test_the_answer_text_does_not_name_the_document_as_an_outside_one():
    q = parse_question("How does the widget catalogue map each widget family to an impact level?")
    result = decide.run_loop(_publication(), q, backend=OfflineBackend(), trace=Trace(), max_loops=1)
    names = [e.name for e in result.answer.external_references]
    assert "SP 800-99" not in names and "FIPS 199" in names  # the triage's verdict (unchanged)
    assert "widget catalogue of SP 800-99" in result.answer.answer  # the quote stays verbatim
    assert f"{_NOTE}FIPS 199." in result.answer.answer  # the note lists what the list holds
    assert "SP 800-99." not in result.answer.answer.split(_NOTE)[-1]


def test_unname_matches_the_note_as_written():
    from docintel.generation.offline.compose import unname

    text = f"Quoted text.\n{_NOTE}SP 800-99; FIPS 199.\nNot yet followed: Table 1 (page 2, line 3); x."
    assert unname(text, ["SP 800-99", "FIPS 199"], {"SP 800-99"}) == text.replace("SP 800-99; ", "")
    # a note left with no name goes, with its line break
    alone = f"Quoted text.\n{_NOTE}SP 800-99."
    assert unname(alone, ["SP 800-99"], {"SP 800-99"}) == "Quoted text."
    # the list may hold more names than the note (a later check added them): the note's own prefix
    assert unname(alone, ["SP 800-99", "RFC 1"], {"SP 800-99"}) == "Quoted text."
    # a name holding '; ' or '.' is matched whole, never split
    odd = f"Quoted.\n{_NOTE}ISO/IEC 27001:2013; Rev. 4; SP 800-99."
    assert unname(odd, ["ISO/IEC 27001:2013; Rev. 4", "SP 800-99"], {"SP 800-99"}) == (
        f"Quoted.\n{_NOTE}ISO/IEC 27001:2013; Rev. 4."
    )
    # a note the clip cut (or a model's own prose) is left as it is
    cut = f"Quoted.\n{_NOTE}SP 800-9"
    assert unname(cut, ["SP 800-99"], {"SP 800-99"}) == cut
    assert unname("SP 800-99 is cited.", ["SP 800-99"], {"SP 800-99"}) == "SP 800-99 is cited."


def test_the_offline_fallback_unnames_its_own_note():
    # ``--fallback offline``: an answer the offline backend wrote carries its notes; a model's
    # own text has none and comes back as it is
    from docintel.generation.backends.fallback import FallbackBackend

    both = FallbackBackend(OfflineBackend(), OfflineBackend())
    text = f"Quoted text.\n{_NOTE}SP 800-99; FIPS 199."
    assert both.unname(text, ["SP 800-99", "FIPS 199"], {"SP 800-99"}) == f"Quoted text.\n{_NOTE}FIPS 199."
    assert both.restate("A model's prose.", []) == "A model's prose."
