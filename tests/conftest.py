"""Suite-wide fixtures.

A test that relies on a guarantee only some sandbox backends give (a read-only
file system outside the work dir, no network...) says so with
``@pytest.mark.needs_sandbox("read_only_root", ...)``; the one fixture below
skips it, with the reason, where the backend in use here cannot give it
(``TDDFORGE_SANDBOX`` names it, else the strongest that works). Every other test
passes on every backend.
"""

from __future__ import annotations

import pytest

from tddforge.sandbox.backend import choose_backend, drop_uid
from tddforge.sandbox.guarantees import GUARANTEES, claimed


@pytest.fixture(autouse=True)
def _needs_sandbox(request: pytest.FixtureRequest) -> None:
    marker = request.node.get_closest_marker("needs_sandbox")
    if marker is None:
        return
    unknown = set(marker.args) - set(GUARANTEES)
    if unknown:
        raise ValueError(f"needs_sandbox: no such guarantee {sorted(unknown)}")
    backend = choose_backend()
    missing = sorted(set(marker.args) - claimed(backend, drop_uid()))
    if missing:
        pytest.skip(
            f"needs {', '.join(missing)}, which the sandbox backend {backend!r} here does not "
            "give (install bubblewrap, or allow user namespaces; see `tddforge sandbox-info`)"
        )
