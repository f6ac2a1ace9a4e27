"""The corpus verbs on the command line (embedded store), and retries of a failing task."""

from __future__ import annotations

import json

from docintel.cli import main
from tests.corpus_fixtures import DRAFT_SECRETS, make_corpus

Q = "How do we submit informative mappings, and how long is the review period?"


def test_corpus_verbs(tmp_path, capsys, monkeypatch):
    folder = make_corpus(tmp_path / "in", bad=True)
    store = str(tmp_path / "store")
    assert (
        main(
            [
                "ingest",
                str(folder),
                "--corpus",
                store,
                "--groups",
                str(folder / "groups.json"),
                "--layout",
                "never",
                "--ocr",
                "never",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "parsed 3" in out and "failed: locked.pdf" in out and "failed: notes.txt" in out

    assert main(["docs", "--corpus", store, "--as", "analyst"]) == 0
    listing = capsys.readouterr().out
    assert "sp800-901.pdf" in listing and "draft" not in listing

    monkeypatch.setenv("DOCINTEL_USER", "reviewer")
    assert main(["ask", "--corpus", store, Q, "--json"]) == 0
    as_reviewer = json.loads(capsys.readouterr().out)
    assert as_reviewer["route"] == "search" and as_reviewer["document"]["file"] == "sp800-903-draft.pdf"
    assert all("document" in c for c in as_reviewer["citations"])

    assert main(["ask", "--corpus", store, "--as", "analyst", Q]) == 0
    text = capsys.readouterr().out
    assert not any(s in text for s in DRAFT_SECRETS)
    monkeypatch.delenv("DOCINTEL_USER")
    assert main(["ask", "--corpus", store, Q]) == 0
    assert "No document you can access matches" in capsys.readouterr().out

    assert main(["access", "member", "carol", "reviewers", "--corpus", store]) == 0
    assert main(["access", "show", "--corpus", store, "--as", "carol"]) == 0
    assert "reads 1 document" in capsys.readouterr().out.splitlines()[-1]
    assert main(["access", "grant", "nonexistent.pdf", "public", "--corpus", store]) == 1
    assert "no document 'nonexistent.pdf'" in capsys.readouterr().err

    qfile = tmp_path / "q.jsonl"
    qfile.write_text(
        json.dumps(
            {
                "id": "x1",
                "question": Q,
                "route": "search",
                "user": "analyst",
                "answer_must_contain": ["informative mappings"],
                "must_not_contain": DRAFT_SECRETS,
            }
        )
        + "\n"
    )
    assert main(["eval", str(qfile), "--corpus", store, "--users", "analyst,reviewer", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["questions"] == 1 and res["leaks"] == 0 and res["sweep_runs"] == 2 and res["sweep_leaks"] == 0


def test_not_a_store_is_one_error_line(tmp_path, capsys):
    assert main(["docs", "--corpus", str(tmp_path / "nothing"), "--as", "x"]) == 1
    assert capsys.readouterr().err.strip().startswith("Error: ")


def test_unexpected_task_failure_is_retried_then_reported(tmp_path, monkeypatch):
    from docintel.corpus import ingest as ing

    folder = make_corpus(tmp_path / "in")
    real = ing.parse_task
    calls: dict[str, int] = {}

    def flaky(path, docs_dir, options):
        name = path.rsplit("/", 1)[-1]
        calls[name] = calls.get(name, 0) + 1
        if name == "sp800-901.pdf" and calls[name] == 1:
            raise OSError("transient")
        if name == "sp800-902.pdf":
            raise MemoryError("always")
        return real(path, docs_dir, options)

    monkeypatch.setattr(ing, "parse_task", flaky)
    s = ing.ingest(
        tmp_path / "store",
        [folder],
        groups_file=folder / "groups.json",
        parse_options={"layout": "never", "ocr": "never"},
        retries=2,
    )
    assert calls["sp800-901.pdf"] == 2 and calls["sp800-902.pdf"] == 3
    assert s.parsed == 2 and [f for f, _ in s.failures] == ["sp800-902.pdf"]
    assert "MemoryError" in s.failures[0][1]
