"""Inputs read from the data files a project's tests load (``json.load(open(...))``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tddforge.builtin.data_files import MAX_BYTES, DataFiles
from tddforge.builtin.explore import Call
from tddforge.builtin.from_tests import read_tests
from tests.unit.builtin.test_from_tests import INFO

ROWS = [["a: b", 1], ["c: d", 2]]

# a test file's source (at tests/test_docs.py), and the calls read through its data files
CASES = [
    (
        "a setUp loads the rows with a with-statement, a test walks them",
        "import json\nimport unittest\nfrom pkg.docs import parse\n\n"
        "class T(unittest.TestCase):\n"
        "    def setUp(self):\n"
        "        with open('tests/rows.json') as f:\n"
        "            self.data = json.load(f)\n\n"
        "    def test_a(self):\n"
        "        for text, n in self.data:\n"
        "            parse(text)\n",
        ["'a: b'", "'c: d'"],
    ),
    (
        "beside the test file, through __file__ and os.path",
        "import json, os\nfrom pkg.docs import parse\n"
        "HERE = os.path.dirname(os.path.abspath(__file__))\n"
        "ROWS = json.load(open(os.path.join(HERE, 'rows.json')))\n\n"
        "def test_a():\n    for row in ROWS:\n        parse(row[0])\n",
        ["'a: b'", "'c: d'"],
    ),
    (
        "through pathlib, read as text then parsed",
        "import json\nfrom pathlib import Path\nfrom pkg.docs import parse\n\n"
        "def test_a():\n"
        "    rows = json.loads((Path(__file__).resolve().parent / 'rows.json').read_text())\n"
        "    parse(rows[1][0])\n",
        ["'c: d'"],
    ),
    (
        "a text file read whole is the input",
        "from pkg.docs import parse\n\n"
        "def test_a():\n    with open('tests/sample.txt') as f:\n        parse(f.read())\n",
        ["'key: value\\n'"],
    ),
    (
        "a name bound by open, read in binary",
        "from pkg.docs import parse\n\n"
        "def test_a():\n    f = open('tests/sample.txt', 'rb')\n    parse(f.read())\n",
        ["b'key: value\\n'"],
    ),
    (
        "a file beside the project, not in it",
        "import json\nfrom pkg.docs import parse\n\n"
        "def test_a():\n    for row in json.load(open('../secret.json')):\n"
        "        parse(row[0])\n",
        [],
    ),
    (
        "a file that is not there",
        "import json\nfrom pkg.docs import parse\n\n"
        "def test_a():\n    for row in json.load(open('tests/none.json')):\n        parse(row[0])\n",
        [],
    ),
    (
        "a file that is not JSON",
        "import json\nfrom pkg.docs import parse\n\n"
        "def test_a():\n    for row in json.load(open('tests/sample.txt')):\n        parse(row)\n",
        [],
    ),
    (
        "a file too large to read",
        "import json\nfrom pkg.docs import parse\n\n"
        "def test_a():\n    for row in json.load(open('tests/big.json')):\n        parse(row[0])\n",
        [],
    ),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "rows.json").write_text(json.dumps(ROWS), encoding="utf-8")
    (root / "tests" / "sample.txt").write_text("key: value\n", encoding="utf-8")
    big = [["x" * 100, 1]] * (MAX_BYTES // 100)
    (root / "tests" / "big.json").write_text(json.dumps(big), encoding="utf-8")
    (tmp_path / "secret.json").write_text(json.dumps(ROWS), encoding="utf-8")
    return root


@pytest.mark.parametrize(("case", "source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_inputs_from_data_files(project: Path, case: str, source: str, expected: list[str]) -> None:
    sources = {"tests/test_docs.py": source}
    found = read_tests("pkg.docs", INFO, sources, files=DataFiles(project)).calls
    assert found == [Call("parse", (text,)) for text in expected]
    # without the files, nothing is read from them
    assert read_tests("pkg.docs", INFO, sources).calls == []
