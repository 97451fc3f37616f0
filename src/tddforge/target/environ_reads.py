"""What a call reads of the machine it runs on: environment variables, the user, the network.

A call's value can come from the environment without the module naming a
variable: ``os.path.expanduser("~")`` reads ``HOME``, ``getpass.getuser()``
reads ``LOGNAME``, ``tempfile.gettempdir()`` reads ``TMPDIR``. The sandbox's
values of those are not the user's, so a test asserting such a value must set
them as they were where it was observed. While ``watching`` is on, every read
of ``os.environ`` (``[]``, ``get``, ``in``, ``os.getenv``: all go through
``__getitem__``) is recorded with the value it found, None when unset.

The user the sandbox runs calls as is not the one who runs the tests
(``/run/user/65534`` against ``/run/user/1000``): ``identity_read`` tells whether
a call asked for its user or group id, through wrappers ``install_identity``
puts in ``os`` before the module is imported (so ``from os import getuid`` binds
them too).

Whether a test reaches a host depends on the machine it runs on (the sandbox has no
network: ``[Errno -3] Temporary failure in name resolution``), and a unit test must
not reach one anyway: ``network_used`` tells whether a call looked a host up or
opened a connection, through wrappers ``install_network`` puts in ``socket``.

Runs under the TARGET's interpreter, stdlib only; keep it compatible with Python 3.8+.
"""

from __future__ import annotations

import functools
import os
import socket
from contextlib import contextmanager
from typing import Any, Callable, ClassVar, ContextManager, Iterator

_Environ: Any = type(os.environ)


class _Watched(_Environ):  # type: ignore[misc]
    """``os.environ``'s class while a call runs: its reads are recorded in ``seen``."""

    seen: ClassVar[dict[str, str | None]] = {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str) and key not in _Watched.seen:
            try:
                _Watched.seen[key] = _Environ.__getitem__(self, key)
            except KeyError:
                _Watched.seen[key] = None
        return _Environ.__getitem__(self, key)


@contextmanager
def watching() -> Iterator[dict[str, str | None]]:
    """Record the variables read (name → the value found, None when unset) until the block ends."""
    seen: dict[str, str | None] = {}
    _Watched.seen = seen
    before = os.environ.__class__
    try:
        os.environ.__class__ = _Watched
    except TypeError:  # an environ replaced by something else: nothing is recorded
        yield seen
        return
    try:
        yield seen
    finally:
        os.environ.__class__ = before


_IDENTITY = ("getuid", "geteuid", "getgid", "getegid", "getlogin")
_LOOKUPS = ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr")
_CONNECTS = ("connect", "connect_ex")
_asked = [False]  # a wrapped user or group function ran
_reached = [False]  # a wrapped host lookup or connect ran


def install_identity() -> None:
    """Wrap ``os``'s user and group functions so that a call to one is noticed."""
    _install(os, _IDENTITY, _asked)


def install_network() -> None:
    """Wrap ``socket``'s host lookups and a socket's ``connect`` so that a use is noticed
    (``socket.create_connection`` and ``http.client`` go through them)."""
    _install(socket, _LOOKUPS, _reached)
    _install(socket.socket, _CONNECTS, _reached)


def _install(owner: Any, names: tuple[str, ...], flag: list[bool]) -> None:
    for name in names:
        original = getattr(owner, name, None)
        if original is not None:
            setattr(owner, name, noticed(original, flag))


def always(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whatever the arguments: ``noticed``'s default condition."""
    return True


def noticed(
    original: Any,
    flag: list[bool],
    when: Callable[[tuple[Any, ...], dict[str, Any]], bool] = always,
) -> Any:
    """``original``, raising ``flag`` when it is called with arguments ``when`` accepts."""

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not flag[0] and when(args, kwargs):
            flag[0] = True
        return original(*args, **kwargs)

    return wrapper


@contextmanager
def noticing(flag: list[bool]) -> Iterator[list[bool]]:
    """``[True]`` once the block is over if a wrapped function raising ``flag`` ran in it."""
    flag[0] = False
    found = [False]
    try:
        yield found
    finally:
        found[0] = flag[0]


def identity_read() -> ContextManager[list[bool]]:
    """``[True]`` once the block is over if a call in it asked for the user or group."""
    return noticing(_asked)


def network_used() -> ContextManager[list[bool]]:
    """``[True]`` once the block is over if a call in it looked up a host or connected."""
    return noticing(_reached)
