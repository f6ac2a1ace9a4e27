"""The golden-file flag must never be left on: a run with it set fails here on purpose."""

import os


def test_golden_regeneration_flag_is_off():
    assert os.environ.get("DOCINTEL_UPDATE_GOLDEN") != "1", (
        "DOCINTEL_UPDATE_GOLDEN=1 rewrites golden files instead of checking them; unset it"
    )
