"""``benchmarks/bench_scale.spread_report``: the per-round ratios and the A/A gap it prints."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_scale  # noqa: E402


def test_spread_report_gives_each_rounds_ratio_and_the_aa_gap():
    # two rounds of three questions on 25 and 600 pages, two copies of one tree
    asked = {
        "this": {25: [[1.0, 2.0, 3.0], [1.0, 4.0, 3.0]], 600: [[2.0, 4.0, 6.0], [3.0, 6.0, 9.0]]},
        "again": {25: [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], 600: [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]},
    }
    text = bench_scale.spread_report(asked, 25, 600)
    lines = text.splitlines()
    # this: per-question medians 25p (1, 3, 3) -> 3; 600p (2.5, 5, 7.5) -> 5; rounds 4/2, 6/3
    # two rounds: one later round has no range to print
    assert lines[0] == "this 600/25 med ratio 1.67; by round 2.00 2.00"
    assert lines[1] == "again 600/25 med ratio 1.00; by round 1.00 1.00"
    assert lines[2] == "A/A spread (this vs again, the same code): 1.67 vs 1.00, gap 0.67"


def test_spread_report_without_a_second_copy_has_no_aa_line():
    asked = {"this": {25: [[1.0], [2.0], [1.0]], 600: [[2.0], [2.0], [3.0]]}}
    assert (
        bench_scale.spread_report(asked, 25, 600)
        == "this 600/25 med ratio 2.00; by round 2.00 1.00 3.00 (range 2.00 over rounds 2-3)"
    )


def test_the_phrase_and_window_scores_are_fingerprinted():
    """pagescores.py was split from bm25.py: a change to it must rebuild stored indexes as one to
    bm25.py did (what it computes is read with the index's memo)."""
    from docintel.retrieval import bm25

    assert "retrieval/pagescores.py" in bm25.FINGERPRINTED
    assert any(p.name == "pagescores.py" for p in bm25.fingerprint_files())
