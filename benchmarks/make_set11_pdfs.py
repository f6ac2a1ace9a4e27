"""Gather and render the documents of question set 11 (unseen documents, a fresh measure).

Usage:
    python benchmarks/make_set11_pdfs.py [--out DIR] [--spdx DIR] [--force]

Set 11 measures generalisation again after sets 1-10 were all fitted to: documents in the
families docintel is judged on (contracts, rule books / policies, a government guideline), none
read while the code was written. Two are real PDFs, copied unchanged; three are texts laid out
with set 9's renderer:

- Debian ``debian-policy`` (``apt-get install debian-policy``): ``fhs/fhs-3.0.pdf.gz``, the
  Filesystem Hierarchy Standard 3.0 (real PDF; "see Section 3.12", "as described in Chapter 4"),
  and ``perl-policy.txt.gz``, the Debian Perl Policy ("see Section 2.2, “Module Path”",
  "Appendix A");
- ``/work/shared/corpus/nist/pdfs/sp800-160v1.pdf`` (``$DOCINTEL_SHARED``): NIST SP 800-160
  Volume 1, systems security engineering (real PDF; "Appendix F", "Section 3.4.2"); only one
  question of the long first-hop list (Appendix F.1.2) touched it;
- npm ``spdx-license-list@6.12.0`` (see make_set9_pdfs.py): the Apple Public Source License 2.0
  (Sections 1.1 ... 13.9, Exhibit A, "Section 2.2(c)") and the Reciprocal Public License 1.5
  (defined terms, "Section 6.1", "Exhibit A").

No tax or benefit instructions ship in the registries this project reaches; that family is
still only in the held-out set. The PDFs are never committed. Output: ``DIR/set11/`` (default
``~/.cache/docintel/generated``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
from pathlib import Path

from make_set8_pdfs import write_pdf  # the same page layout, running heads and save
from make_set9_pdfs import CSS, _html, paragraphs  # set 9's indentation-keeping renderer

GENERATED = Path(os.environ.get("DOCINTEL_GENERATED", Path.home() / ".cache" / "docintel" / "generated"))
SHARED = Path(os.environ.get("DOCINTEL_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
SPDX = Path("/tmp/spdx/node_modules/spdx-license-list/licenses")
POLICY = Path("/usr/share/doc/debian-policy")

# (file name, source, key, style, running title); "gz" and "copy" are real PDFs, "gztext" a text
DOCS = [
    ("fhs-3.0.pdf", "gz", "fhs/fhs-3.0.pdf.gz", "", ""),
    ("sp800-160v1.pdf", "copy", "corpus/nist/pdfs/sp800-160v1.pdf", "", ""),
    ("perl-policy.pdf", "gztext", "perl-policy.txt.gz", "book", "Debian Perl Policy"),
    ("apsl-2.0.pdf", "spdx", "APSL-2.0", "word", "Apple Public Source License Version 2.0"),
    ("rpl-1.5.pdf", "spdx", "RPL-1.5", "bold", "Reciprocal Public License 1.5"),
]


def _text(source: str, key: str, spdx: Path) -> tuple[str | None, str | None]:
    """The text of one rendered document, or why it could not be read."""
    if source == "gztext":
        src = POLICY / key
        if not src.exists():
            return None, f"{src} missing (apt-get install debian-policy)"
        with gzip.open(src, "rt", encoding="utf-8") as f:
            return f.read(), None
    src = spdx / f"{key}.json"
    if not src.exists():
        return None, f"{src} missing (npm install spdx-license-list)"
    return json.loads(src.read_text())["licenseText"], None


def _copy(source: str, key: str, path: Path) -> str | None:
    """Write one real PDF to ``path``; returns why it could not, or None."""
    src = POLICY / key if source == "gz" else SHARED / key
    if not src.exists():
        return (
            f"{src} missing ({'apt-get install debian-policy' if source == 'gz' else 'set DOCINTEL_SHARED'})"
        )
    if source == "gz":
        with gzip.open(src, "rb") as f, open(path, "wb") as out:
            shutil.copyfileobj(f, out)
    else:
        shutil.copyfile(src, path)
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(GENERATED))
    ap.add_argument("--spdx", default=str(SPDX))
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    out = Path(args.out) / "set11"
    out.mkdir(parents=True, exist_ok=True)
    for name, source, key, style, title in DOCS:
        path = out / name
        if path.exists() and not args.force:
            continue
        if source in ("gz", "copy"):
            why = _copy(source, key, path)
            print(f"skip {name}: {why}" if why else f"{path}: copied", file=sys.stderr if why else sys.stdout)
            continue
        text, why = _text(source, key, Path(args.spdx))
        if text is None:
            print(f"skip {name}: {why}", file=sys.stderr)
            continue
        n = write_pdf(_html(paragraphs(text)), CSS[style], style, title, path, "set11")
        print(f"{path}: {n} pages ({style})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
