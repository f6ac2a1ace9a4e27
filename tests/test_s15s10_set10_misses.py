"""Session 15 (s10): faults question set 10 (unseen contracts, rule books, a NIST guideline) found."""

from __future__ import annotations

import pandas as pd

from docintel.retrieval.resolve_build import section_at
from tests.test_s12rz_named_parts import _appendix_toc


def test_an_appendix_label_that_is_the_last_toc_row_resolves():
    # set 10 (a licence whose last exhibit, "EXHIBIT C", is printed alone on its line and is the
    # toc's last row): the rows after it were an empty string Series, whose mapped stop flags kept
    # a string dtype and could not be or-ed with the level test (TypeError, the whole ask failed)
    obj = pd.Series({"page": 13, "line_start": 1})
    got = section_at(_appendix_toc("APPENDIX F"), obj)
    assert len(got) == 1
    assert got.iloc[0]["title"] == "APPENDIX G"
    assert (int(got.iloc[0]["page_end"]), int(got.iloc[0]["line_end"])) == (13, 2)
