"""Write the hand-made hostile and damaged PDFs of tests/fuzz/hostile.py to a folder.

python scripts/make_hostile.py /tmp/hostile
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz.hostile import HOSTILE  # noqa: E402


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "hostile")
    out.mkdir(parents=True, exist_ok=True)
    for name, (make, expected) in HOSTILE.items():
        data = make()
        (out / f"{name}.pdf").write_bytes(data)
        print(f"{name}.pdf\t{len(data)} bytes\texpected: {expected}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
