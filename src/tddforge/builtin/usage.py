"""Type hints for unannotated parameters, inferred from how the body uses them.

Untyped code (``def valmap(func, d, factory=dict)``) gives input synthesis
nothing to go on. Its body often does: ``func(...)`` is a callable,
``d.keys()`` a dict. Pure: source text in, ``{qualname: {parameter: hint}}``
out, hints as text (``"Callable"``, ``"dict"``, ``"list"``, ``"str"``, ...,
or an ``isinstance`` type as written). Code in nested functions and lambdas
counts for the callable around them. Evidence ranks, strongest first:
``isinstance``; calls; dict use; str use (a regex searching it too); list methods,
int indexing and iteration into several names (a list of tuples);
iteration, ``in``, ``len`` and unpacking; arithmetic and comparison with
literals. Without evidence, a literal default's type, then the parameter's
name; these also win over the weak iteration kind when they name something
iterable (``len(d)`` keeps ``d`` a dict). For ``*args`` and ``**kwargs`` the
hint is for one element, from the loop variables that take their elements.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping

from tddforge.builtin.discover import CallableInfo, ModuleInfo

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Func = ast.FunctionDef | ast.AsyncFunctionDef
_CALLERS = {"map", "filter", "reduce"}  # take a callable as their first argument
_DICT_METHODS = {"items", "keys", "values", "get", "setdefault", "update"}
_STR_METHODS = {
    "split",
    "strip",
    "lstrip",
    "rstrip",
    "lower",
    "upper",
    "startswith",
    "endswith",
    "replace",
    "encode",
    "isdigit",
    "isalpha",
    "isspace",
    "find",
    "rfind",
    "title",
    "capitalize",
    "format",
    "casefold",
    "splitlines",
    "partition",
    "zfill",
    "join",
}
_LIST_METHODS = {"append", "extend", "insert", "sort"}
_ANY_OF_ONE = "Callable[[Any], Any]"
_ANY_OF_TWO = "Callable[[Any, Any], Any]"
_FILE_METHODS = {"read", "readline", "readlines", "write", "writelines", "seek", "tell", "flush"}
REGEX_METHODS = {"match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}
_DUCK_TYPES = (
    ({"year", "month", "day"}, ("date", "datetime")),
    ({"days", "seconds"}, ("timedelta",)),
    ({"start", "stop", "step"}, ("slice",)),
)
_MAX_KEYS = 8  # keys a dict parameter's hint names, in the order the body reads them
_IN_MEMORY_FILES = {"BytesIO": "bytes", "StringIO": "str"}
_SCALARS = (bool, int, float, str, bytes)
_UNPACKED = 5  # rank of iteration into names (``for x, y in p``): pairs, not text
_WEAK = 6  # rank of iteration, `in`, len() and unpacking: a dict or a str does all of them
_ORDERED = 8  # rank of `<` against an unknown value: anything ordered, never a callable
_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_ITERABLE = {"dict", "str", "bytes", "list"}
_BY_NAME = {
    "Callable": {
        "func",
        "f",
        "fn",
        "function",
        "predicate",
        "pred",
        "key",
        "callback",
        "binop",
        "reducer",
        "receiver",
        "handler",
        "listener",
        "hook",
        "observer",
        "subscriber",
    },
    "dict": {
        "d",
        "dct",
        "dict",
        "dict_",
        "mapping",
        "mapper",
        "dictionary",
        "doc",
        "document",
        "data",
        "obj",
        "payload",
        "config",
        "options",
        "params",
        "headers",
        "context",
    },
    "list": {
        "keys",
        "items",
        "seq",
        "coll",
        "lst",
        "elements",
        "values",
        "iterable",
        "seqs",
        "pairs",
    },
    "str": {
        "s",
        "text",
        "string",
        "word",
        "name",
        "prefix",
        "suffix",
        "sep",
        "path",
        "pattern",
        "line",
        "string_",
    },
    "int": {"n", "i", "count", "size", "num", "index", "length", "width", "k", "times"},
    "TextIO": {
        "fp",
        "fh",
        "file",
        "stream",
        "infile",
        "outfile",
        "fileobj",
        "file_obj",
        "fobj",
        "handle",
        "in_file",
        "out_file",
    },
}
#: the last word of a compound name that makes it a callable's: ``key`` does not
#: (``cache_key``), nor does a letter
_CALLABLE_WORDS = _BY_NAME["Callable"] - {"key", "f", "receiver"}
_ELEMENT_BY_NAME = {
    "funcs": "Callable",
    "functions": "Callable",
    "dicts": "dict",
    "mappings": "dict",
    "seqs": "list",
    "lists": "list",
    "strings": "str",
}


def usage_hints(source: str) -> dict[str, dict[str, str]]:
    """qualname -> {parameter name -> hint text} for UNANNOTATED parameters, inferred from use.

    Only parameters with a hint appear, and only callables with one.
    """
    found = list(module_callables(ast.parse(source).body, ""))
    own = {qualname: _infer(func, method) for qualname, func, method in found}
    hints = {qualname: dict(inferred) for qualname, inferred in own.items() if inferred}
    for _ in range(_PASSES):  # a chain of hand-overs, a link per pass
        for qualname, func, method in found:
            handed = _handed_over(qualname, func, method, found, hints, own[qualname])
            if handed:
                hints[qualname] = {**handed, **own[qualname]}
    return hints


_PASSES = 2  # hand-overs followed: ``circuit`` to ``__init__`` to ``build_failure_predicate``


def _handed_over(
    qualname: str,
    func: _Func,
    method: bool,
    found: list[tuple[str, _Func, bool]],
    hints: dict[str, dict[str, str]],
    own: dict[str, str],
) -> dict[str, str]:
    """Hints for the parameters ``func``'s body gives unchanged to a callable of the
    module that has a hint for them, where the body gives none of its own (``own``):
    ``build_failure_predicate(expected_exception)``, ``self._parse(text)``, ``Box(size)``.
    Hints are not inferred for ``self`` nor for an annotated parameter."""
    plain = {
        a.arg
        for a in positional_params(func, method) + func.args.kwonlyargs
        if a.annotation is None
    }
    open_names = plain - set(own)
    if not open_names:
        return {}
    signatures = {name: (f, m) for name, f, m in found}
    handed: dict[str, list[str]] = {}
    for callee, name, own_name in passed_on(qualname, func, method, signatures):
        if callee in hints and own_name in open_names and name in hints[callee]:
            handed.setdefault(own_name, []).append(hints[callee][name])
    return {name: _union(given) for name, given in handed.items()}


def _union(hints: list[str]) -> str:
    """One hint for a value handed to several callees: each one's types, in turn, "none of
    these" last. biplist's ``writePlistToString(rootObject)`` gives it to
    ``wrapDataObject`` (tuples, lists, dicts, bytes) or to a writer's ``writeRoot`` (bools,
    floats, sets, strings too), as ``binary`` says."""
    if len(set(hints)) == 1:
        return hints[0]
    members = [m for hint in hints for m in _members(hint)]
    kept = [m for m in dict.fromkeys(members) if m != "None"]
    return " | ".join([*kept, *(["None"] if "None" in members else [])])


def _members(hint: str) -> list[str]:
    """A union's members, split at its top level only (``Callable[[Any, Any], Any] | str``)."""
    members, depth, start = [], 0, 0
    for i, char in enumerate(hint):
        depth += char in "[("
        depth -= char in "])"
        if char == "|" and depth == 0:
            members.append(hint[start:i].strip())
            start = i + 1
    return [*members, hint[start:].strip()]


def passed_on(
    qualname: str, func: _Func, method: bool, signatures: dict[str, tuple[_Func, bool]]
) -> Iterator[tuple[str, str, str]]:
    """``(callee, its parameter, the name given)`` for each argument ``func``'s body gives
    unchanged (a bare name) to a callable of the module: a function, a class (its
    ``__init__``), a method on ``self`` or ``cls``, or one on an instance the body builds
    (``writer = PlistWriter(f)``, then ``writer.writeRoot(root)``)."""
    owner = qualname.rpartition(".")[0] if method else ""
    built = _built_instances(func, signatures)
    for node in ast.walk(func):
        if not isinstance(node, ast.Call):
            continue
        callee = callee_name(node.func, owner, signatures, built)
        if callee is None:
            continue
        target, is_method = signatures[callee]
        names = [a.arg for a in positional_params(target, is_method)]
        given = list(zip(names, node.args, strict=False))
        given += [(k.arg, k.value) for k in node.keywords if k.arg]
        for name, value in given:
            if isinstance(value, ast.Name):
                yield callee, name, value.id


def _built_instances(func: _Func, signatures: dict[str, tuple[_Func, bool]]) -> dict[str, str]:
    """Local name → the module's class whose instance the body binds it to, once
    (``writer = PlistWriter(f)``); a name bound more than once is left out."""
    classes = {name.rpartition(".")[0] for name in signatures if "." in name}
    made: dict[str, list[str]] = {}  # name → what each binding calls ("" for anything else)
    for node in ast.walk(func):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            value = None if isinstance(node, ast.AugAssign) else node.value
            cls = _name(value.func) if isinstance(value, ast.Call) else ""
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for name in filter(None, map(_name, targets)):
                made.setdefault(name, []).append(cls)
    return {name: cls[0] for name, cls in made.items() if len(cls) == 1 and cls[0] in classes}


def positional_params(func: _Func, method: bool) -> list[ast.arg]:
    """``func``'s positional parameters, without ``self`` or ``cls`` for a method."""
    positional = [*func.args.posonlyargs, *func.args.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list)
    return positional[1:] if method and not static else positional


def callee_name(
    node: ast.expr,
    owner: str,
    signatures: dict[str, tuple[_Func, bool]],
    built: Mapping[str, str] | None = None,
) -> str | None:
    """The qualname of the module's callable a call names: a function, a class (its
    ``__init__``), a method of ``owner`` called on ``self`` or ``cls``, or a method called
    on a local the body ``built`` (local name → class) an instance of."""
    if isinstance(node, ast.Name):
        for name in (node.id, f"{node.id}.__init__"):
            if name in signatures:
                return name
    if not isinstance(node, ast.Attribute):
        return None
    held = _name(node.value)
    cls = owner if owner and held in ("self", "cls") else (built or {}).get(held)
    name = f"{cls}.{node.attr}" if cls else ""
    return name if name in signatures else None


def module_callables(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, _Func, bool]]:
    """Each function and method, by qualname; a class without an ``__init__`` of its own
    has its first base's, when the module defines that base (sre_yield's
    ``RegexMembershipSequenceMatches(regex)`` runs ``RegexMembershipSequence.__init__``)."""
    inits: dict[str, _Func] = {}
    for node in body:
        if isinstance(node, _FUNCS):
            yield prefix + node.name, node, bool(prefix)
        elif isinstance(node, ast.ClassDef):
            yield from module_callables(node.body, f"{prefix}{node.name}.")
            own = next(
                (f for f in node.body if isinstance(f, _FUNCS) and f.name == "__init__"), None
            )
            base = _name(node.bases[0]) if node.bases else ""
            init = own or inits.get(base)
            if init is not None:
                inits[node.name] = init
                if own is None:
                    yield f"{prefix}{node.name}.__init__", init, True


def _infer(func: _Func, method: bool) -> dict[str, str]:
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list)
    if method and not static:
        positional = positional[1:]  # self, cls
    defaults = dict(zip([a.arg for a in positional][::-1], args.defaults[::-1], strict=False))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d)
    plain = [a.arg for a in [*positional, *args.kwonlyargs] if a.annotation is None]
    packed = [a.arg for a in (args.vararg, args.kwarg) if a and a.annotation is None]
    uses = _Uses({name: name for name in plain} | _elements(func, args.vararg, args.kwarg))
    for stmt in func.body:
        uses.visit(stmt)
    hints = {}
    for name in plain + packed:
        found = uses.found.get(name, {})
        rank = min(found, default=0)
        by_name = _ELEMENT_BY_NAME.get(name) if name in packed else _by_name(name)
        fallback = _literal(defaults.get(name)) or by_name
        hint = found.get(rank)
        if not hint or (rank == _WEAK and fallback in _ITERABLE):
            hint = fallback
        elif rank == _ORDERED and fallback and not fallback.startswith("Callable"):
            hint = fallback  # ``s < other.s``: the name's ``str`` is ordered too
        keys = uses.keys.get(name, [])[:_MAX_KEYS]
        if hint == "dict" and keys:  # ``value['non_swift']``: a dict holding those keys
            hint = f"dict[Literal[{', '.join(map(repr, keys))}], Any]"
        if hint and name in uses.named_by_text:
            hint = _or_text(hint)
        if hint:
            hints[name] = hint
    return hints


def _or_text(hint: str) -> str:
    """``hint``, or a str too: a body that calls a value and also tests it against a
    string (``errors(chars)``, ``errors == 'ignore'``) takes a function or a mode's name."""
    members = hint.split(" | ")
    if "str" in members or "Any" in members or hint.startswith("Literal"):
        return hint
    if members[-1] == "None":  # "none of these" stays last
        return " | ".join([*members[:-1], "str", "None"])
    return f"{hint} | str"


def _elements(func: _Func, vararg: ast.arg | None, kwarg: ast.arg | None) -> dict[str, str]:
    """Loop variables over ``*args`` (``for d in args``) or ``**kwargs`` values -> the parameter."""
    aliases = {}
    for node in ast.walk(func):
        if not isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            continue
        it, target = node.iter, node.target
        if vararg and vararg.annotation is None and _name(it) == vararg.arg:
            aliases[_name(target)] = vararg.arg
        elif kwarg and kwarg.annotation is None and isinstance(it, ast.Call):
            method = it.func
            if isinstance(method, ast.Attribute) and _name(method.value) == kwarg.arg:
                if method.attr == "items" and isinstance(target, ast.Tuple) and target.elts:
                    target = target.elts[-1]
                if method.attr in {"items", "values"}:
                    aliases[_name(target)] = kwarg.arg
    aliases.pop("", None)
    return aliases


class _Uses(ast.NodeVisitor):
    """Evidence for tracked local names, by the parameter they stand for: {param: {rank: hint}}."""

    def __init__(self, tracked: dict[str, str]) -> None:
        self.tracked = tracked
        self.found: dict[str, dict[int, str]] = {}
        self.attributes: dict[str, set[str]] = {}
        self.named_by_text: set[str] = set()  # tested for equality with a string literal
        self.keys: dict[str, list[str]] = {}  # the string keys read from it (``d['name']``)

    def note(self, node: ast.AST, rank: int, hint: str) -> None:
        if isinstance(node, ast.Name) and node.id in self.tracked:
            self.found.setdefault(self.tracked[node.id], {}).setdefault(rank, hint)

    def note_types(self, node: ast.AST, types: list[str], *, checked: bool = False) -> None:
        """Types add up: ``Duration | timedelta | None`` when a body tests both.

        After an ``isinstance`` check (``checked``), ``None`` comes last, standing
        for "none of these": the branch taken when every check fails
        (``else: raise TypeError``) needs such an input too.
        """
        if isinstance(node, ast.Name) and node.id in self.tracked:
            ranks = self.found.setdefault(self.tracked[node.id], {})
            known = ranks[1].split(" | ") if 1 in ranks else []
            otherwise = checked or "None" in known
            members = [t for t in dict.fromkeys([*known, *types]) if t != "None"]
            ranks[1] = " | ".join([*members, *(["None"] if otherwise else [])])

    def visit_Call(self, node: ast.Call) -> None:
        callee, args = node.func, node.args
        name = callee.attr if isinstance(callee, ast.Attribute) else _name(callee)
        if name == "isinstance" and len(args) == 2:
            types = args[1].elts if isinstance(args[1], ast.Tuple) else [args[1]]
            self.note_types(args[0], [ast.unparse(t) for t in types], checked=True)
        if name == "issubclass" and len(args) == 2:  # a class: ``expected_exception``
            types = args[1].elts if isinstance(args[1], ast.Tuple) else [args[1]]
            self.note_types(args[0], [f"type[{ast.unparse(t)}]" for t in types], checked=True)
        if name == "callable" and len(args) == 1:  # ``circuit(func)`` or ``circuit(5)``
            self.note_types(args[0], ["Callable"], checked=True)
        self.note(callee, 2, _callable(node))
        if name == "hasattr" and len(args) == 2 and _literal_text(args[1]) in _FILE_METHODS:
            self.note_types(args[0], ["TextIO"])  # ``hasattr(source, "read")``: a file will do
        if name in _CALLERS and args:  # map(f, xs), filter(p, xs): one item; reduce: two
            self.note(args[0], 2, _ANY_OF_TWO if name == "reduce" else _ANY_OF_ONE)
        if isinstance(callee, ast.Attribute):
            self.method(callee.value, callee.attr, args)
        if name == "len" and args:
            self.note(args[0], _WEAK, "list")
        for arg in args if name == "range" else ():
            self.note(arg, 7, "int")
        if name in _IN_MEMORY_FILES and args:  # ``io.BytesIO(data)``: the file's contents
            self.note(args[0], 4, _IN_MEMORY_FILES[name])
        self.arguments(node)
        self.generic_visit(node)

    def arguments(self, node: ast.Call) -> None:
        for arg in node.args:
            if isinstance(arg, ast.Starred):  # f(*p)
                self.note(arg.value, _WEAK, "list")
        for keyword in node.keywords:
            if keyword.arg == "key":  # sorted(xs, key=p)
                self.note(keyword.value, 2, _ANY_OF_ONE)
            elif keyword.arg is None:  # f(**p)
                self.note(keyword.value, 3, "dict")

    def read_key(self, node: ast.expr, key: str) -> None:
        if isinstance(node, ast.Name) and node.id in self.tracked:
            keys = self.keys.setdefault(self.tracked[node.id], [])
            if key not in keys:
                keys.append(key)

    def method(self, owner: ast.expr, attr: str, args: list[ast.expr]) -> None:
        if attr in ("get", "pop") and args and _literal_text(args[0]) is not None:
            self.read_key(owner, str(_literal_text(args[0])))
        if attr in _FILE_METHODS:
            self.note(owner, 3, "TextIO")
        elif attr in _DICT_METHODS:
            self.note(owner, 3, "dict")
        elif attr in _STR_METHODS:
            self.note(owner, 4, "str")
        elif attr == "decode":
            self.note(owner, 4, "bytes")
        elif attr in _LIST_METHODS:
            self.note(owner, 5, "list")
        if attr == "join" and args:
            self.note(args[0], 4, "list")
        where = _searched_string(owner, attr)
        if where is not None and len(args) > where:
            self.note(args[where], 4, "str")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        """Duck typing: a value whose ``.year``, ``.month`` and ``.day`` are read is date-like."""
        if isinstance(node.value, ast.Name) and node.value.id in self.tracked:
            param = self.tracked[node.value.id]
            seen = self.attributes.setdefault(param, set())
            seen.add(node.attr)
            for attrs, types in _DUCK_TYPES:
                if attrs <= seen:
                    self.note_types(node.value, list(types))
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        if isinstance(index, ast.Constant) and isinstance(index.value, str):
            self.note(node.value, 3, "dict")
            if isinstance(node.ctx, ast.Load):
                self.read_key(node.value, index.value)
        elif isinstance(index, ast.Slice) or _literal(index) == "int":
            self.note(node.value, 5, "list")
        self.generic_visit(node)

    def visit_For(self, node: ast.For | ast.AsyncFor | ast.comprehension) -> None:
        target = node.target
        if isinstance(target, ast.Tuple | ast.List) and len(target.elts) > 1:
            # ``for x, y in pairs``: a list of tuples that size, whatever else iterates
            elements = ", ".join(["Any"] * len(target.elts))
            self.note(node.iter, _UNPACKED, f"list[tuple[{elements}]]")
        self.note(node.iter, _WEAK, "list")
        self.generic_visit(node)

    visit_AsyncFor = visit_comprehension = visit_For

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(target, ast.Tuple | ast.List) for target in node.targets):
            self.note(node.value, _WEAK, "list")  # unpacking
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        lefts = [node.left, *node.comparators[:-1]]
        for left, op, right in zip(lefts, node.ops, node.comparators, strict=True):
            if isinstance(op, ast.In | ast.NotIn):
                self.note(right, _WEAK, "list")
                if isinstance(right, ast.Tuple | ast.List | ast.Set) and any(
                    _literal_text(e) is not None for e in right.elts
                ):
                    self.text_test(left)  # ``mode in ("fast", "slow")``
            else:
                self.literal_pair(left, right)
            if isinstance(op, ast.Eq | ast.NotEq):
                if _literal_text(right) is not None:
                    self.text_test(left)
                if _literal_text(left) is not None:
                    self.text_test(right)
            if isinstance(op, _ORDERINGS):  # ``key < node.key``: a key, not a key function
                self.note(left, _ORDERED, "int")
                self.note(right, _ORDERED, "int")
        self.generic_visit(node)

    def text_test(self, node: ast.expr) -> None:
        if isinstance(node, ast.Name) and node.id in self.tracked:
            self.named_by_text.add(self.tracked[node.id])

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if not (isinstance(node.op, ast.Mod) and _literal(node.left) == "str"):  # "%s" % p
            self.literal_pair(node.left, node.right)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.literal_pair(node.target, node.value)
        self.generic_visit(node)

    def literal_pair(self, left: ast.expr, right: ast.expr) -> None:
        for one, other in ((left, right), (right, left)):
            hint = _literal(other)
            if hint:
                self.note(one, 7, hint)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        """A nested callable: its own parameters hide the outer names they share."""
        args = node.args
        own = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        own.update(a.arg for a in (args.vararg, args.kwarg) if a)
        outer = self.tracked
        self.tracked = {k: v for k, v in outer.items() if k not in own}
        self.generic_visit(node)
        self.tracked = outer

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef


def _callable(call: ast.Call) -> str:
    """The hint for what ``call`` calls: ``Callable[[Any, Any], Any]`` for two positional
    arguments, plain ``Callable`` when their number is not fixed (``*args``, keywords)."""
    if call.keywords or any(isinstance(arg, ast.Starred) for arg in call.args):
        return "Callable"
    return f"Callable[[{', '.join(['Any'] * len(call.args))}], Any]"


def _literal_text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _searched_string(owner: ast.expr, attr: str) -> int | None:
    """Which argument of ``owner.attr(...)`` a regex searches: ``PATTERN.search(s)``
    (0), ``PATTERN.sub(repl, s)`` (1), ``re.match(p, s)`` (1), ``re.sub(p, repl, s)``
    (2); None when the call is no regex's (``x.split(",")`` is ``x``'s own str use)."""
    if attr not in REGEX_METHODS:
        return None
    shift = 1 if attr in ("sub", "subn") else 0
    if isinstance(owner, ast.Name) and owner.id == "re":
        return 1 + shift
    return None if attr == "split" else shift


def _literal(node: ast.expr | None) -> str | None:
    """The type name of a literal (``-1`` included), or None (for ``None`` too)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, _SCALARS):
        return type(node.value).__name__
    if isinstance(node, ast.List | ast.Dict):
        return "list" if isinstance(node, ast.List) else "dict"
    return None


def _by_name(name: str) -> str | None:
    """The hint a parameter's name gives, a numbered one's (``string1``, ``s_2``) its stem's;
    a compound name ending in a word only a callable is named by (``fallback_function``,
    ``error_handler``) is a callable."""
    if name.startswith(("is_", "has_")):
        return "bool"
    stem = name.rstrip("0123456789").rstrip("_") or name
    found = next((hint for hint, names in _BY_NAME.items() if {name, stem} & names), None)
    if found is None and stem.rpartition("_")[2] in _CALLABLE_WORDS:
        return "Callable"
    return found


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else ""


def annotate(info: ModuleInfo, hints: dict[str, dict[str, str]]) -> ModuleInfo:
    """``info`` with each unannotated parameter given its inferred hint, where there is one."""

    def fill(func: CallableInfo, key: str) -> CallableInfo:
        found = hints.get(key, {})
        if not found:
            return func
        params = tuple(
            p.model_copy(update={"annotation": found[p.name]})
            if p.annotation is None and p.name in found
            else p
            for p in func.parameters
        )
        return func.model_copy(update={"parameters": params})

    return info.with_each(fill)
