"""The builtin offline test generator: ``tddforge cover`` with no LLM.

``generator.py`` is what the cover loop calls (a ``TestSuiteGenerator``):
``generate`` = discover → annotate (usage hints) → search → write;
``enhance`` = the mutant-directed phase. The parts, each tested on real
sample modules:

- ``discover.py`` + ``target/probe.py``: import the target module under the project's
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
- ``explore.py`` + ``target/calls.py``: plan calls from discovery and candidates
  (pure: a base call, then one parameter varied at a time; instance methods on
  an instance built with the constructor's first candidates), run them in the
  sandbox under the project's interpreter (the stdlib-only runner forks one
  child per call, traces arcs in the module with ``sys.settrace``, records the
  returned value's repr, or the exception, or timeout/crash, and a non-literal
  value's public literal attributes), twice with two hash seeds: only
  outcomes equal in both runs are deterministic (a value that differed in one type is
  kept as that type: ``typed_alike``). ``keep_new_coverage`` (pure)
  keeps the deterministic calls that reach new arcs.
- ``search.py``: rounds of exploration within a time budget; after round 0
  (the planned calls) each round runs the untried neighbours of the calls kept
  so far (one argument mutated within its hint, or swapped for another
  candidate) and stops when a round keeps
  nothing, nothing is left to try, or the budget is spent.
- ``writer.py`` (pure): kept calls → a pytest module (or, for unittest and
  django projects, one ``unittest.TestCase`` per function or class); one test
  per kept call, named from the callable and what it did
  (``test_pluralize_returns_children``, ``test_parse_raises_value_error``),
  literal inputs, ``==``/``is`` on literal values, the exception's type and
  message matched literally, other objects through their public literal
  attributes or their type. Tested end to end on a sample module in both
  styles: discover → search → write; the suite passes twice under pytest,
  covers every branch of the explored functions, and passes ``ruff check``;
  ``generator.py`` formats it with ``ruff format``.
- ``usage.py`` (pure): hints for unannotated parameters from how the body
  uses them (called with two arguments → ``Callable[[Any, Any], Any]``,
  ``.items()`` → dict, ``.read()`` → ``TextIO``, ...), and from names (``fp``).
- ``aliases.py`` (pure): the type aliases the module defines, also under
  ``if TYPE_CHECKING:``, written out in the hints that name them.
- ``from_tests.py`` (pure): literal call shapes read from the project's tests,
  following instances built in the test, in ``setUp`` and in fixtures; ``bindings.py``
  (pure) follows what their names stand for (``s = "..."``, a loop over a table, a
  ``parametrize`` row), so that each row of a table is a call.
- ``module_state.py`` (pure): module globals a call rebinds (``global X``), put back
  after its test, and the functions reading ``sys.argv`` or stdin, whose tests get the
  command line and streams the runner gave them.
- ``texts.py`` (pure): multi-line texts composed from what the module's
  parsing code compares, splits and indents.
- ``protocols.py`` (pure): the instances other calls return (``entry = parse(text)``)
  and the methods and properties planned on them; a comparison's untyped operand
  hinted as its own class. Attribute syntax (``box.size = 3``, ``del box.size``), the
  copy and pickle round trips and ``hash`` are special methods the runner calls, and
  the writer writes, as a test spells them (``target/probe.py``: ``OPERATORS``).
- ``options.py`` (pure): pairs of optional parameters that act together (tested
  in one condition, or one inside the branch of the other; a method's ``self.x`` for
  the constructor's ``x``), planned together and met again among neighbours.
- ``regex_example.py`` (pure): a string each mined regex matches.
- ``targeting.py`` (pure): which calls to run against which surviving
  mutant, whether an outcome tells the mutant apart (as the written
  assertions would), and a greedy choice of calls; for mutants no traced
  call reaches (import-time tables and the helpers that fill them), new
  calls fed the mutated line's literals, what its regexes match and the
  words the helper's call sites pass, to the functions that read that data.
"""
