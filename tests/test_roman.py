"""One roman-numeral reader for page labels, provision numbers and reference ranges."""

from __future__ import annotations

from docintel.text import roman_value, to_roman


def test_round_trip_and_case():
    assert [to_roman(n) for n in (1, 4, 9, 14, 40, 90, 400, 1994)] == [
        "i", "iv", "ix", "xiv", "xl", "xc", "cd", "mcmxciv",
    ]  # fmt: skip
    assert to_roman(12, upper=True) == "XII"
    assert roman_value("XII") == 12 and roman_value("iv") == 4 and roman_value("mcmxciv") == 1994


def test_malformed_and_non_numerals_are_none():
    for s in ("", "iiii", "vx", "ic", "abc", "x1"):
        assert roman_value(s) is None, s


def test_letters_limit_what_counts():
    # provision labels: "(d)" and "(m)" are letters, not 500 and 1000
    assert roman_value("d", "ivxlc") is None and roman_value("d") == 500
    assert roman_value("xiv", "ivxlc") == 14
