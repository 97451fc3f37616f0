"""Class bodies a Python trace function must leave alone. Runs under the TARGET's
interpreter, stdlib only; keep it compatible with Python 3.8+."""

from __future__ import annotations

from typing import Any


def binds_class_cell(code: Any) -> bool:
    """Whether ``code`` is a class body that binds the name ``__class__`` (wrapt's
    ``ObjectProxy``: ``@property def __class__``, then ``@__class__.setter``) while its
    methods use the implicit ``__class__`` cell. Up to Python 3.10, a Python trace
    function syncs a frame's locals around each of its calls, and an empty cell removes
    the class body's own ``__class__``: the next line raises ``NameError``, so such a
    body must not be traced line by line."""
    return "__class__" in code.co_cellvars and "__class__" in code.co_names
