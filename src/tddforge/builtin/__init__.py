"""The builtin offline test generator (issue 5): foundations, not yet a generator.

What exists and works (each tested on real sample modules, in the sandbox):

- ``discover.py`` + ``probe.py``: import the target module under the project's
  interpreter inside the sandbox and describe its public functions, classes,
  methods and constructors (signatures, parameter kinds, literal defaults,
  type hints as written, docstrings, doctest examples). A module that cannot
  be imported safely becomes one ``InputError`` line.

What is missing (so ``tddforge cover --engine builtin`` still says it is not
available): constant mining and input synthesis if not listed above,
coverage-guided exploration, the mutant-directed phase, assertion recording
(run twice, drop what varies), readable pytest/unittest output, and the
``TestSuiteGenerator`` adapter the cover loop would call.
"""
