"""Gather and render the documents of question set 10 (held-out families nobody has tuned to).

Usage:
    python benchmarks/make_set10_pdfs.py [--out DIR] [--spdx DIR] [--force]

Set 10 measures generalisation: its documents are in the families docintel is judged on
(contracts, rule books, a government guideline) but none was read while the parser or the
reference loop was written. Three are real PDFs, copied unchanged; four are licence texts laid
out with set 9's renderer (each text's own numbering, indentation and cross-reference wording):

- Debian ``gnu-standards`` (``apt-get install gnu-standards``): ``standards.pdf.gz`` (GNU Coding
  Standards) and ``maintain.pdf.gz`` (Information for Maintainers of GNU Software), texinfo PDFs
  whose pointers read "See Section 7.2 [Makefile Conventions], page 88";
- ``/work/shared/corpus/nist/pdfs/sp800-60v2r1.pdf`` (``$DOCINTEL_SHARED``): NIST SP 800-60
  Volume II, appendices that point into Volume I;
- npm ``spdx-license-list@6.12.0`` (see make_set9_pdfs.py): the Netscape Public License 1.1
  (Sections 1.0.1 ... 6.2, "Amendments", Exhibit A), the RealNetworks Public Source License 1.0
  (Exhibits, defined terms), the Academic Free License 3.0 ("Section 1(c)") and the GNU Free
  Documentation License 1.3 ("section 4", "ADDENDUM").

The PDFs are never committed. Output: ``DIR/set10/`` (default ``~/.cache/docintel/generated``).
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
GNU = Path("/usr/share/doc/gnu-standards")

# (file name, source, key, style, running title); source "copy" and "gz" are real PDFs
DOCS = [
    ("gnu-standards.pdf", "gz", "standards.pdf.gz", "", ""),
    ("gnu-maintain.pdf", "gz", "maintain.pdf.gz", "", ""),
    ("sp800-60v2r1.pdf", "copy", "corpus/nist/pdfs/sp800-60v2r1.pdf", "", ""),
    ("npl-1.1.pdf", "spdx", "NPL-1.1", "word", "Netscape Public License Version 1.1"),
    ("rpsl-1.0.pdf", "spdx", "RPSL-1.0", "book", "RealNetworks Public Source License Version 1.0"),
    ("afl-3.0.pdf", "spdx", "AFL-3.0", "bold", "Academic Free License v. 3.0"),
    ("gfdl-1.3.pdf", "spdx", "GFDL-1.3-only", "web", "GNU Free Documentation License 1.3"),
]


def _gather(source: str, key: str, path: Path, spdx: Path) -> str | None:
    """Write one real PDF to ``path``; returns why it could not, or None."""
    if source == "gz":
        src = GNU / key
        if not src.exists():
            return f"{src} missing (apt-get install gnu-standards)"
        with gzip.open(src, "rb") as f, open(path, "wb") as out:
            shutil.copyfileobj(f, out)
        return None
    src = SHARED / key
    if not src.exists():
        return f"{src} missing (set DOCINTEL_SHARED)"
    shutil.copyfile(src, path)
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(GENERATED))
    ap.add_argument("--spdx", default=str(SPDX))
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    out = Path(args.out) / "set10"
    out.mkdir(parents=True, exist_ok=True)
    spdx = Path(args.spdx)
    for name, source, key, style, title in DOCS:
        path = out / name
        if path.exists() and not args.force:
            continue
        if source != "spdx":
            why = _gather(source, key, path, spdx)
            print(f"skip {name}: {why}" if why else f"{path}: copied", file=sys.stderr if why else sys.stdout)
            continue
        if not (spdx / f"{key}.json").exists():
            print(f"skip {name}: {spdx}/{key}.json missing (npm install spdx-license-list)", file=sys.stderr)
            continue
        text = json.loads((spdx / f"{key}.json").read_text())["licenseText"]
        n = write_pdf(_html(paragraphs(text)), CSS[style], style, title, path, "set10")
        print(f"{path}: {n} pages ({style})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
