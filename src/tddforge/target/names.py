"""What a missing-name error's message says is missing: the one copy of these patterns.

The runner's plugin reads the imported symbol from an ``ImportError``'s
message here, under the target's interpreter; the host (RED validation, the
Python runner's kata names) reads the names of a recorded failure's message
with the same patterns.
"""

from __future__ import annotations

import re

# ``from mod import sym`` failed: the missing name is ``sym`` (``ImportError.name`` is ``mod``)
CANNOT_IMPORT = re.compile(r"cannot import name '([^']+)'")
# the same, with the module it was looked for in: (name, module)
CANNOT_IMPORT_FROM = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
NO_MODULE = re.compile(r"No module named '([\w.]+)'")
# (module, name)
MODULE_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")
# (instance's class, class, name)
OBJECT_ATTR = re.compile(r"(?:'(\w+)' object|type object '(\w+)') has no attribute '(\w+)'")
# Messages of the exception itself (not pytest's output): "No module named 'x'",
# "has no attribute 'x'", "name 'x' is not defined"; one group per form.
MISSING_IN_MESSAGE = re.compile(
    r"No module named '([\w.]+)'|has no attribute '(\w+)'|name '(\w+)' is not defined"
)
