"""Session 16 (an): a line-end hyphen the line itself shows to be the word's is kept.

Set 5 fed-controls-worksheet (FedRAMP's OSCAL SAP guide, section 4.5): "... this can be as simple
as specifying include-all. For annual assessments, use include-" / "control instead - one for each
control ..." was joined as "use includecontrol instead": the answer no longer said "include-"."""

from __future__ import annotations

from docintel.generation.text import join_lines


def test_a_compound_the_line_writes_keeps_its_hyphen():
    lines = ["initial assessments, this can be as simple as specifying include-all. For annual assessments, use include-",
             "control instead - one for each control included in the assessment."]  # fmt: skip
    assert "use include-control instead" in join_lines(lines)


def test_a_word_broken_at_the_line_end_is_joined_as_before():
    assert join_lines(
        ["we hypothesized it would allow the model to extrapo-", "late to longer sequences"]
    ) == ("we hypothesized it would allow the model to extrapolate to longer sequences")
    # another word written with a hyphen on the line says nothing of the broken one
    assert join_lines(["a well-known classi-", "fication"]) == "a well-known classification"
    # nor does the fragment inside another word ("preclude-x" is not "include-")
    assert join_lines(["preinclude-all and include-", "d"]) == "preinclude-all and included"
