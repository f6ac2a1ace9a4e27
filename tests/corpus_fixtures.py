"""Small generated PDFs and a throwaway PostgreSQL cluster for the corpus tests."""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pymupdf

PUBLIC_A = {
    "cover": ["NIST Special Publication 800-901 Revision 1", "Guide to Keeping Incident Records"],
    "sections": [
        ("1 Introduction", "This guide explains how organizations keep incident handling records."),
        (
            "2 Record Retention",
            "Incident handling records are kept for three years after all follow-up actions are"
            " complete, as specified in SP 800-902. The retention schedule is the general records"
            " schedule number forty-two.",
        ),
        ("3 Destruction", "Records are destroyed with a cross-cut shredder once retention ends."),
    ],
}
PUBLIC_B = {
    "cover": ["NIST Special Publication 800-902", "Records Schedules for Federal Systems"],
    "sections": [
        ("1 Scope", "This publication lists records schedules for federal information systems."),
        (
            "2 Incident Records Schedule",
            "Schedule forty-two governs incident handling records: they are retained for three years"
            " and then destroyed.",
        ),
    ],
}
DRAFT = {
    "cover": ["Draft NIST Special Publication 800-903", "Submitting Informative Mappings"],
    "sections": [
        ("1 Purpose", "This draft tells developers how to submit informative mappings to NIST."),
        (
            "2 Submission",
            "Send the mapping package to mappings-alias@example.gov; a sixty-day zebra review period"
            " follows the posting of each candidate mapping.",
        ),
    ],
}
GROUPS = {
    "documents": {
        "sp800-901.pdf": ["public"],
        "sp800-902.pdf": ["public"],
        "sp800-903-draft.pdf": ["reviewers"],
    },
    "users": {"analyst": ["public"], "reviewer": ["public", "reviewers"]},
}
DRAFT_SECRETS = ["mappings-alias@example.gov", "sixty-day zebra review period"]


def make_pdf(path: Path, spec: dict) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    y = 100
    for i, line in enumerate(spec["cover"]):
        page.insert_text((72, y), line, fontsize=20 if i == 0 else 16)
        y += 40
    toc = []
    for title, body in spec["sections"]:
        page = doc.new_page()
        page.insert_text((72, 80), title, fontsize=16, fontname="helv")
        toc.append([1, title, doc.page_count])
        rect = pymupdf.Rect(72, 100, 540, 700)
        page.insert_textbox(rect, body, fontsize=11)
    doc.set_toc(toc)
    doc.save(path)
    doc.close()
    return path


def make_corpus(folder: Path, *, bad: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    make_pdf(folder / "sp800-901.pdf", PUBLIC_A)
    make_pdf(folder / "sp800-902.pdf", PUBLIC_B)
    make_pdf(folder / "sp800-903-draft.pdf", DRAFT)
    (folder / "groups.json").write_text(json.dumps(GROUPS))
    if bad:
        (folder / "broken.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
        (folder / "notes.txt").write_text("not a pdf")
        enc = pymupdf.open()
        enc.new_page().insert_text((72, 72), "secret")
        enc.save(folder / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    return folder


# -- PostgreSQL ---------------------------------------------------------------------------


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb")) or (
        [shutil.which("initdb")] if shutil.which("initdb") else []
    )
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgCluster:
    """initdb into a temporary folder and start on a free loopback port (as 'postgres' under root)."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="docintel-pg-"))
        os.chmod(self.root, 0o755)
        self.data = self.root / "data"
        self.port = _free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:  # initdb refuses to run as root
            self.prefix = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.root, "postgres")

    def _run(self, *cmd: str) -> None:
        subprocess.run([*self.prefix, *cmd], check=True, capture_output=True, text=True, timeout=120)

    def start(self) -> PgCluster:
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync"
        )
        opts = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            opts,
            "-l",
            str(self.root / "log"),
            "-w",
            "start",
        )
        return self

    def dsn(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def create_db(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as con:
            con.execute(f"CREATE DATABASE {name}")
        return self.dsn(name)

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
