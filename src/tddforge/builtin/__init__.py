"""The builtin offline test generator (issue 5): foundations, not yet a generator.

What exists and works (each piece tested on real sample modules):

- ``discover.py`` + ``probe.py``: import the target module under the project's
  interpreter inside the sandbox and describe its public functions, classes,
  methods and constructors (signatures, parameter kinds, literal defaults,
  type hints as written, docstrings, doctest examples). A module that cannot
  be imported safely (syntax error, missing dependency, network or writes
  outside the project at import time, exit, hang) becomes one ``InputError``.
- ``constants.py`` (pure): literals mined from the module's AST, by the
  callable they appear in, with their role (comparison operand, dict key,
  regex, format string, default, doctest input, call argument, other).
- ``values.py`` (pure): candidate literal inputs for a parameter from its
  hint (parsed, never evaluated), literal default, fitting constants and their
  mutations (±1, sign flips, empty/doubled strings). Types written as the
  module's own classes get no literals: exploration must build those.

What is missing, so ``tddforge cover --engine builtin`` still says the
generator is not available: coverage-guided exploration (running calls in
the sandbox, keeping inputs that reach new branches), objects built from the
module's constructors, strings made to match mined regexes, the
mutant-directed phase, assertion recording (run twice, drop what varies),
readable pytest/unittest output, the ``TestSuiteGenerator`` adapter the cover
loop would call, the bundled example and the Pynguin benchmark.
"""
