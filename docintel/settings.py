"""Options with DOCINTEL_* environment variables: flag > env > default, in one typed Settings."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from docintel.errors import UsageError

ENV_PREFIX = "DOCINTEL_"


def env(name: str, default: Any = None) -> Any:
    """Return ``DOCINTEL_<NAME>`` from the environment, or ``default``."""
    value = os.environ.get(ENV_PREFIX + name.upper())
    return default if value in (None, "") else value


def pick(flag: Any, name: str, default: Any = None) -> Any:
    """The flag when given, else the environment variable, else the default."""
    return flag if flag is not None else env(name, default)


def artifacts_dir(flag: str | os.PathLike | None = None) -> Path:
    """Where parsed tables are cached: ``-o DIR`` > ``DOCINTEL_ARTIFACTS`` > ./artifacts."""
    return Path(pick(flag, "artifacts", DEFAULTS.artifacts))


@dataclass(frozen=True)
class Settings:
    """The pipeline's options, each default stated once here. ``resolve`` maps flags and
    ``DOCINTEL_*`` variables onto it (flag > env > default); the CLI and the API read it."""

    layout: str = "auto"  # escalate pages to the layout model: auto | always | never
    ocr: str = "auto"  # read image-only pages with Tesseract when installed: auto | never
    parser: str = "pymupdf"  # pymupdf | docling
    artifacts: str = "artifacts"  # where parsed tables and traces are cached
    backend: str | None = None  # None: openai when an endpoint is configured, else offline
    fallback: str = "none"  # none | offline (answer offline, labelled, when output never validates)
    max_loops: int = 1  # the loop budget: reference passes after the first
    top_k: int | None = None  # pages for pass 1; None: 1, or one per listed object page
    eager_refs: bool = False  # run the reference extractor over every line at parse time

    def cache_options(
        self, *, parser_version: str, ocr_token: str | None, docling_json_sha: str | None = None
    ) -> dict[str, Any]:
        """What the parse cache key is computed from: the settings that change the tables
        (parser, layout, ocr, eager_refs) plus what no setting states: the parser's code
        fingerprint, whether Tesseract is installed (``ocr_token``) and a Docling export's digest."""
        pymupdf = self.parser == "pymupdf"
        return {
            "parser": self.parser,
            "parser_version": parser_version,
            "layout": self.layout if pymupdf else None,
            "ocr": ocr_token if pymupdf else None,
            "eager_refs": bool(self.eager_refs),
            "docling_json_sha": docling_json_sha,
        }

    @classmethod
    def resolve(cls, **flags: Any) -> Settings:
        """Flags given (not None) win, then ``DOCINTEL_<NAME>``, then the default above."""
        out = {}
        for f in fields(cls):
            value = pick(flags.get(f.name), f.name, getattr(DEFAULTS, f.name))
            if f.name == "eager_refs" and isinstance(value, str):
                value = value.strip().lower() in ("1", "true", "yes", "on")
            if value is not None and f.name in ("max_loops", "top_k"):
                try:
                    value = int(value)
                except (TypeError, ValueError):
                    raise UsageError(
                        f"DOCINTEL_{f.name.upper()} must be a whole number, not {value!r}"
                    ) from None
            out[f.name] = value
        return cls(**out)


DEFAULTS = Settings()
