"""rank.retrieve's Ranking (session 10, rk2): pages are scored and sorted as plain records and a
Candidate is built only when it is read, then kept. The first hop reads a few of hundreds; every
reader must still see what the list of Candidates gave: the same items, order, identity, length."""

from __future__ import annotations

import pickle

import pytest

from docintel.questions import parse_question
from docintel.retrieval import rank, retrieve
from docintel.schema.evidence import Candidate

from .test_s10rk_rank_loop import _tables

_Q = "Who approves a transfer of funds?"


def test_only_the_candidates_read_are_built(monkeypatch):
    built = []

    def counting(**kw):
        built.append(kw["page"])
        return Candidate(**kw)

    monkeypatch.setattr(rank, "Candidate", counting)
    cands = retrieve(parse_question(_Q), _tables(), top_k=1)
    assert built == []  # scoring and sorting build none
    first = cands[:1]
    assert built == [first[0].page]
    assert len(cands) == 5 and built == [first[0].page]  # len() builds nothing
    list(cands)
    assert sorted(built) == [1, 2, 3, 4, 5]  # each page once: a read item is kept


def test_a_read_candidate_is_kept_and_the_sequence_acts_like_the_list():
    cands = retrieve(parse_question(_Q), _tables(), top_k=2)
    assert cands[0] is cands[0] and cands[-1] is cands[4] and list(cands)[1] is cands[1]
    assert cands[1:3] == [cands[1], cands[2]] and isinstance(cands[1:3], list)
    assert [c.chosen for c in cands] == [True, True, False, False, False]
    assert "chosen" in cands[0].model_fields_set and "chosen" not in cands[2].model_fields_set
    assert cands == list(cands) and list(cands) == cands
    assert cands == retrieve(parse_question(_Q), _tables(), top_k=2)
    assert cands != retrieve(parse_question(_Q), _tables(), top_k=1)  # chosen differs
    assert pickle.loads(pickle.dumps(cands)) == cands
    assert cands.index(cands[3]) == 3 and cands[2] in cands
    with pytest.raises(IndexError):
        cands[5]
    with pytest.raises(IndexError):
        cands[-6]


def test_the_chosen_are_the_first_top_k():
    """firstpass takes ``candidates[:top_k]`` as the chosen pages (no scan of every page)."""
    for k in (0, 1, 2, 3, 7):
        cands = retrieve(parse_question(_Q), _tables(), top_k=k)
        assert [c for c in cands if c.chosen] == cands[:k]
