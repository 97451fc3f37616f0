"""The runner sets a call's environment variables and puts back what was there, records
what the call read of it, and marks a file operation the system refused."""

from __future__ import annotations

import errno
import os

import pytest

from tddforge.target.calls import describe_error, set_environment
from tddforge.target.environ_reads import (
    identity_read,
    install_identity,
    install_network,
    network_used,
    watching,
)


def test_variables_are_set_unset_and_put_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TDDFORGE_T_KEPT", "before")
    monkeypatch.delenv("TDDFORGE_T_NEW", raising=False)
    pairs = [["TDDFORGE_T_KEPT", None], ["TDDFORGE_T_NEW", "1"], ["TDDFORGE_T_NEW", "2"]]
    saved = set_environment(pairs)
    assert "TDDFORGE_T_KEPT" not in os.environ
    assert os.environ["TDDFORGE_T_NEW"] == "2"
    set_environment(saved)
    assert os.environ["TDDFORGE_T_KEPT"] == "before"
    assert "TDDFORGE_T_NEW" not in os.environ  # set twice: back to what it was first


def test_reads_of_the_environment_are_recorded_with_what_they_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    monkeypatch.setenv("TDDFORGE_T_SET", "yes")
    monkeypatch.delenv("TDDFORGE_T_UNSET", raising=False)
    environ_class = type(os.environ)
    with watching() as seen:
        path = os.path.expanduser("~/x")  # the standard library reads HOME
        found = os.getenv("TDDFORGE_T_SET"), "TDDFORGE_T_UNSET" in os.environ
        os.environ["TDDFORGE_T_WRITTEN"] = "w"  # a write is not a read
    os.environ.pop("TDDFORGE_T_WRITTEN")
    assert (path, found) == ("/home/someone/x", ("yes", False))
    assert seen == {"HOME": "/home/someone", "TDDFORGE_T_SET": "yes", "TDDFORGE_T_UNSET": None}
    assert type(os.environ) is environ_class
    os.environ.get("TDDFORGE_T_SET")
    assert "TDDFORGE_T_SET" in seen and len(seen) == 3  # nothing recorded after the block


@pytest.mark.parametrize(
    ("exc", "denied"),
    [
        (OSError(errno.EROFS, "Read-only file system"), True),
        (PermissionError(errno.EACCES, "Permission denied"), True),
        (OSError(errno.EPERM, "Operation not permitted"), True),
        (FileNotFoundError(errno.ENOENT, "No such file"), False),
        (PermissionError("the module's own, no errno"), False),
        (ValueError("x"), False),
    ],
)
def test_a_refused_file_operation_is_marked_denied(exc: BaseException, denied: bool) -> None:
    described = describe_error(exc)
    assert described.get("denied", False) is denied
    assert described["type"] == type(exc).__qualname__


def test_a_call_asking_who_runs_it_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("getuid", "geteuid", "getgid", "getegid", "getlogin"):
        monkeypatch.setattr(os, name, getattr(os, name))  # put back after the test
    uid = os.getuid()
    install_identity()
    from os import getuid  # as a module binds it at import

    with identity_read() as asked:
        assert getuid() == uid
    with identity_read() as quiet:
        os.getpid()
    assert (asked, quiet) == ([True], [False])


def test_a_call_reaching_for_the_network_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    """websocket-client's ``create_connection("wss://...")``: in the sandbox, a failed name
    lookup; elsewhere, maybe a connection. Either way a unit test must not make it."""
    import socket

    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr"):
        monkeypatch.setattr(socket, name, getattr(socket, name))
    for name in ("connect", "connect_ex"):
        monkeypatch.setattr(socket.socket, name, getattr(socket.socket, name))
    install_network()
    from socket import getaddrinfo  # as a module binds it at import

    with network_used() as looked_up:
        getaddrinfo("127.0.0.1", 9, type=socket.SOCK_STREAM)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    with network_used() as connected, socket.socket() as client:
        client.connect_ex(server.getsockname())
    server.close()
    with network_used() as quiet:
        socket.socket().close()
    assert (looked_up, connected, quiet) == ([True], [True], [False])
