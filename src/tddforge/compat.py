"""What differs between the Python versions tddforge supports (3.10 and later), in one place."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]

__all__ = ["tomllib"]
