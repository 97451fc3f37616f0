"""Code that runs under the TARGET project's interpreter, not tddforge's.

Every module here imports only the standard library and pytest (``_pytest``),
and its siblings by relative import: the project under test never needs
tddforge installed, and none is imported from it. Keep it compatible with
Python 3.8+ (the oldest interpreter a target may have).

The host ships the package into a sandbox scratch dir
(``tddforge.runner.ship``) and starts an entry of ``main.py`` there, or loads
``pytest_plugin.py`` with ``-p``. The host may import from here (the protocol's
types, the missing-name patterns, ``source.apply_mutant``); nothing here
imports the host.

Modules, by concern:

- ``protocol``: the worker's JSON messages, as event names and TypedDicts
- ``source``: a mutant's span spliced into a module's source
- ``names``: what a missing-name error's message says is missing
- ``processes``: fork + pipe, CPU and wall-clock limits, a pool of children
- ``single_process``: pytest-xdist kept from sending tests elsewhere
- ``pytest_plugin``: the test runner's plugin (JSON line per test phase)
- ``probe``, ``calls``: the builtin generator's discovery and call runner
- ``sourcecache``: project modules compiled once for the children forked after
- ``compile_check``: compile files without writing bytecode
- ``addresses``: a rerun's objects moved at random, for the set orders they make
- ``signatures``: the public signatures of named classes and functions
- the mutation worker: ``hosting`` (pytest in a child), ``tracing``,
  ``baseline``, ``codecache``, ``graft``, ``rebind``, ``fresh``, ``reference``
  (ground truth), ``reuse``, ``journal`` (the results file), ``request``,
  ``plan``, ``session``, ``serve``
- ``main``: the entry points, by name
"""
