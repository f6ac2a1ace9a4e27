"""OCR noise is kept out of the index, and the parse summary says what OCR did."""

from __future__ import annotations

import pytest

from docintel.cli.parse import _image_only_lines
from docintel.parsing.ocr import looks_like_noise


@pytest.mark.parametrize("text", ["eee—SSCSCSCsés", "| — ~~ ==", "wWwwW mmmn", "Nrrkt Xqzpl bvvn"])
def test_recognition_noise_is_dropped(text):
    assert looks_like_noise(text)


@pytest.mark.parametrize(
    "text",
    [
        "Radio altitude reference is available below 2,500 ft.",
        "(Required by AD 2020-**-**)",
        "2,500",
        "iii",
        "Note: If BARO minimums are set only on the First Officer’s PFD, DH/MDA",
        "McDonald iPhone VerDate GoogLeNet FedRAMP AMOCs",
        "東北電氣發展股份有限公司",
        "Москва Straße",
    ],
)
def test_text_in_any_script_and_case_pattern_is_kept(text):
    assert not looks_like_noise(text)


def test_parse_summary_says_ocr_ran_or_why_not():
    ran = _image_only_lines({"image_only_pages": [8, 9], "ocr_pages": [8, 9], "options": {"ocr": "auto"}})
    assert len(ran) == 1 and "read by OCR" in ran[0] and "need OCR" not in ran[0]
    off = _image_only_lines({"image_only_pages": [8], "ocr_pages": [], "options": {"ocr": "never"}})
    assert len(off) == 1 and "--ocr never" in off[0] and "install" not in off[0].lower()
    assert _image_only_lines({"image_only_pages": [], "ocr_pages": []}) == []
