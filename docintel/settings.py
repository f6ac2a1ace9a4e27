"""Options with DOCINTEL_* environment variables: flag > env > default."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

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
    return Path(pick(flag, "artifacts", "artifacts"))
