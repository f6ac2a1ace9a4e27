"""Session 12 (cs): which of a citing document's blocks the follow path keeps. A sentence that
cites the identifier (what it is cited for) is kept before a reference list naming it among many
others with the same fit to the question; access stays checked at every hop."""

from __future__ import annotations

import json

from docintel.corpus import Corpus
from docintel.corpus.paths import follow
from tests.corpus_fixtures import make_pdf
from tests.test_follow import FIPS, HIDDEN, LINKED, OPTS, QUESTION, SECRET, START

#: Cites FIPS 201 twice: first in a reference list of six publications, then in one sentence.
CITING = {
    "cover": ["NIST Special Publication 800-185", "Gadget Ledgers"],
    "sections": [
        (
            "1 References",
            "References: FIPS PUB 201; SP 800-30; SP 800-39; SP 800-53; SP 800-60; FIPS 199 widget.",
        ),
        ("2 Ledgers", "FIPS PUB 201 is why every widget ledger is sealed at night."),
    ],
}
GROUPS = {
    "documents": {
        "sp800-181r2.pdf": ["public"],
        "fips201.pdf": ["public"],
        "sp800-182.pdf": ["public"],
        "sp800-185.pdf": ["public"],
        "sp800-183-draft.pdf": ["reviewers"],
    },
    "users": {"analyst": ["public"], "reviewer": ["public", "reviewers"]},
}


def test_a_citing_sentence_is_kept_before_a_reference_list(tmp_path, monkeypatch):
    folder = tmp_path / "in"
    folder.mkdir()
    for name, spec in [
        ("sp800-181r2.pdf", START),
        ("fips201.pdf", FIPS),
        ("sp800-182.pdf", LINKED),
        ("sp800-185.pdf", CITING),
        ("sp800-183-draft.pdf", HIDDEN),
    ]:
        make_pdf(folder / name, spec)
    (folder / "groups.json").write_text(json.dumps(GROUPS))
    Corpus.ingest(tmp_path / "store", [folder], parse_options=OPTS, groups_file=folder / "groups.json")
    c = Corpus(tmp_path / "store")
    monkeypatch.setattr(follow, "PER_DOCUMENT", 1)
    a = follow.run(c, QUESTION, "analyst")
    assert a["document"]["file"] == "sp800-181r2.pdf"
    kept = [
        e
        for e in a["evidence"]
        if e.get("retrieved_via") == "link" and e["document"]["file"] == "sp800-185.pdf"
    ]
    assert [e["page"] for e in kept] == [3], kept
    assert "sealed at night" in kept[0]["text"]
    everything = json.dumps(a, default=str)
    assert SECRET not in everything and "sp800-183" not in everything
