"""Which backend is asked for, what each claims, and the one notice: tables of cases."""

from __future__ import annotations

import pytest

from tddforge.errors import SandboxError
from tddforge.sandbox.backend import requested_backend
from tddforge.sandbox.guarantees import GUARANTEES, claimed, notice


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", None),
        ("auto", None),
        ("AUTO", None),
        ("bwrap", "bwrap"),
        (" namespaces ", "namespaces"),
        ("Unshare", "unshare"),
        ("none", "none"),
    ],
)
def test_requested_backend(value: str | None, expected: str | None) -> None:
    environ = {} if value is None else {"TDDFORGE_SANDBOX": value}
    assert requested_backend(environ) == expected


@pytest.mark.parametrize("value", ["docker", "bubblewrap", "0"])
def test_an_unknown_backend_is_one_clear_error(value: str) -> None:
    with pytest.raises(SandboxError, match=f"TDDFORGE_SANDBOX='{value}' is not a sandbox backend"):
        requested_backend({"TDDFORGE_SANDBOX": value})


@pytest.mark.parametrize(
    ("used", "expected"),
    [
        (set(), None),
        ({"bwrap"}, None),
        ({"namespaces"}, None),
        ({"bwrap", "namespaces"}, None),
        ({"unshare"}, "'unshare' (missing: read_only_root)"),
        ({"namespaces", "unshare"}, "'unshare' (missing: read_only_root)"),
        (
            {"unshare", "none"},
            "'none' (missing: no_network, no_orphans, private_pids, read_only_root)",
        ),
    ],
)
def test_one_notice_names_the_weakest_backend_used(used: set[str], expected: str | None) -> None:
    line = notice(frozenset(used))
    if expected is None:
        assert line is None
    else:
        assert line is not None and expected in line and "sandbox-info" in line
        assert "\n" not in line


@pytest.mark.parametrize("backend", ["bwrap", "namespaces", "unshare"])
def test_root_with_no_uid_to_drop_to_claims_no_process_limit(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 0)
    assert "process_limit" not in claimed(backend, uid=None)
    assert claimed(backend, uid=65534) >= {"process_limit"}
    assert claimed("bwrap", uid=65534) == frozenset(GUARANTEES)
