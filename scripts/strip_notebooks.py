"""Strip outputs and execution counts from the notebooks, so git holds only their source.

Usage::

    python scripts/strip_notebooks.py            # strip notebooks/*.ipynb in place
    python scripts/strip_notebooks.py --check    # change nothing; exit 1 if one would change
    python scripts/strip_notebooks.py FILE.ipynb ...

Run it before committing a notebook you executed; ``tests/test_notebooks.py`` fails on a
committed output. Plain ``json`` with the layout nbformat writes (indent 1, sorted keys), so
the script needs no Jupyter package.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Per-cell metadata that only records a run (nbclient's timings, the ExecuteTime extension).
RUN_METADATA = ("execution", "ExecuteTime", "collapsed", "scrolled")


def strip(nb: dict) -> dict:
    """The notebook without outputs, execution counts or run-only metadata."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        meta = cell.get("metadata", {})
        for key in RUN_METADATA:
            meta.pop(key, None)
    lang = nb.get("metadata", {}).get("language_info")
    if isinstance(lang, dict):  # the kernel's exact Python version is noise in a diff
        nb["metadata"]["language_info"] = {"name": lang.get("name", "python")}
    return nb


def dumps(nb: dict) -> str:
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=Path, help="notebooks (default: notebooks/*.ipynb)")
    ap.add_argument("--check", action="store_true", help="exit 1 if a notebook is not stripped")
    args = ap.parse_args(argv)
    paths = args.paths or sorted((REPO / "notebooks").glob("*.ipynb"))
    dirty = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        clean = dumps(strip(json.loads(text)))
        if clean != text:
            dirty.append(path)
            if not args.check:
                path.write_text(clean, encoding="utf-8")
    for path in dirty:
        print(f"{'not stripped' if args.check else 'stripped'}: {path}", file=sys.stderr)
    return 1 if args.check and dirty else 0


if __name__ == "__main__":
    sys.exit(main())
