"""What the cover prompts show besides the module: file I/O found statically, and the
definitions a module imports from its own package (bounded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.analysis.module_context import file_io, imported_definitions


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("def f(x):\n    return x + 1\n", ()),
        ("import os\n\nDEBUG = os.environ.get('DEBUG')\n", ()),  # the environment is no file
        ("def read(p):\n    with open(p) as f:\n        return f.read()\n", ("open()",)),
        ("from pathlib import Path\n", ("pathlib",)),
        ("import shutil, tempfile\n", ("shutil", "tempfile")),
        ("import os\n\ndef f(p):\n    return os.path.exists(p)\n", ("os.path.exists",)),
        ("from os import listdir\n", ("os",)),
        ("from os.path import isfile\n", ("os.path",)),
        # string work on paths touches no file
        ("from os.path import join, splitext\nimport os\nSEP = os.path.sep\n", ()),
        ("import os\n\ndef f(p):\n    return os.path.normpath(os.path.join(p, 'x'))\n", ()),
        ("import os.path\n", ()),  # imported, never used: nothing touches a file
        ("def f(:\n", ()),
    ],
)
def test_file_io(source: str, found: tuple[str, ...]) -> None:
    assert file_io(source) == found


def package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


STRUCTURES = """class InfinityType:
    def __repr__(self) -> str:
        return "Infinity"


Infinity = InfinityType()


class Unrelated:
    pass
"""


def test_the_names_imported_from_the_own_package_and_only_those(tmp_path: Path) -> None:
    root = package(
        tmp_path,
        {
            "src/pkg/__init__.py": "from ._utils import canonical\n",
            "src/pkg/_structures.py": STRUCTURES,
            "src/pkg/_utils.py": "def canonical(v):\n    return v.lower()\n",
            "src/pkg/version.py": (
                "import re\nfrom typing import Any\n\n"
                "from ._structures import Infinity, InfinityType\n"
                "from pkg import canonical\nfrom . import _utils\n\n"
                "def key(v):\n    return Infinity\n"
            ),
        },
    )
    shown, left_out = imported_definitions(root, root / "src/pkg/version.py", "pkg.version")
    assert [(d.name, d.path) for d in shown] == [
        ("Infinity", "src/pkg/_structures.py"),
        ("InfinityType", "src/pkg/_structures.py"),
        ("canonical", "src/pkg/_utils.py"),  # through the package's re-export
    ]
    assert shown[0].source == "Infinity = InfinityType()"
    assert shown[1].source.startswith("class InfinityType:\n    def __repr__")
    assert "Unrelated" not in "".join(d.source for d in shown)
    assert left_out == []


def test_a_module_outside_a_package_imports_nothing_of_its_own(tmp_path: Path) -> None:
    root = package(tmp_path, {"calc.py": "from os import path\n\ndef f():\n    pass\n"})
    assert imported_definitions(root, root / "calc.py", "calc") == ([], [])


LONG_CLASS = 'class Big:\n    """Doc."""\n\n    LIMIT = 3\n\n' + "".join(
    f"    def m{i}(self, x: int) -> int:\n        y = x + {i}\n        return y\n\n"
    for i in range(20)
)


def test_each_definition_and_the_total_are_bounded(tmp_path: Path) -> None:
    long_function = "def long():\n" + "".join(f"    x{i} = {i}\n" for i in range(60))
    root = package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/_big.py": LONG_CLASS + long_function,
            "pkg/mod.py": "from ._big import Big, long\n",
        },
    )
    shown, _ = imported_definitions(root, root / "pkg/mod.py", "pkg.mod", max_each=30)
    big, func = shown
    head = ["class Big:", '    """Doc."""', "    LIMIT = 3"]
    assert big.cut and big.source.splitlines()[:3] == head
    assert "    def m0(self, x: int) -> int:\n        ...\n    def m1" in big.source
    assert "y = x" not in big.source and len(big.source.splitlines()) == 30
    assert func.cut and len(func.source.splitlines()) == 30 and func.source.endswith("    ...")
    shown, _ = imported_definitions(root, root / "pkg/mod.py", "pkg.mod", max_each=50)
    assert shown[0].source.endswith("    def m19(self, x: int) -> int:\n        ...")
    shown, left_out = imported_definitions(
        root, root / "pkg/mod.py", "pkg.mod", max_each=30, max_total=40
    )
    assert [d.name for d in shown] == ["Big"] and left_out == ["long"]


DOCUMENTED = '''class FixedOffset(tzinfo):
    """
    A class building tzinfo objects for fixed-offset time zones.

    Note that FixedOffset(0, 0, "UTC") or FixedOffset() is another way
    to build a UTC tzinfo object.
    """

    def __init__(self, hours=0, name="UTC"):
        """
        Initialise an instance with time offset and name.
        """
        self.__offset = timedelta(hours=hours)
        self.__name = name

    def dst(self, dt):
        """
        Return the daylight saving time adjustment.
        """
        return ZERO

    def tzname(self, dt):
        """The name."""
'''


def test_a_long_definition_loses_its_docstrings_before_its_code(tmp_path: Path) -> None:
    root = package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/tz.py": DOCUMENTED,
            "pkg/mod.py": "from .tz import FixedOffset\n",
        },
    )
    (shown,), _ = imported_definitions(root, root / "pkg/mod.py", "pkg.mod", max_each=20)
    assert shown.cut
    assert shown.source == (
        "class FixedOffset(tzinfo):\n"
        '    """A class building tzinfo objects for fixed-offset time zones."""\n'
        "\n"
        '    def __init__(self, hours=0, name="UTC"):\n'
        "        self.__offset = timedelta(hours=hours)\n"
        "        self.__name = name\n"
        "\n"
        "    def dst(self, dt):\n"
        "        return ZERO\n"
        "\n"
        "    def tzname(self, dt):\n"
        "        ..."
    )
