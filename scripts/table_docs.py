"""Print the tables' column reference (Markdown) from docintel/schema/tables.py.

The README's "Tables" section is this script's output; tests/test_readme.py
checks that every column is documented there.
"""

from __future__ import annotations

from docintel.schema.tables import TABLES


def markdown() -> str:
    out = []
    for spec in TABLES.values():
        out.append(f"### `{spec.name}` — {spec.grain}\n")
        out.append("| column | type | meaning |")
        out.append("|---|---|---|")
        for name, dtype in spec.columns:
            desc = spec.descriptions.get(name) or {
                "doc_id": "sha256 of the PDF bytes, first 16 hex characters",
                "x0": "bbox left, PDF points (origin top-left)",
                "y0": "bbox top",
                "x1": "bbox right",
                "y1": "bbox bottom",
            }.get(name, "")
            out.append(f"| `{name}` | {dtype} | {desc} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown())
