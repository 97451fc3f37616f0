from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.workspace import parse_file_blocks

FENCE = "```"


def test_single_block_with_language_tag(tmp_path: Path) -> None:
    reply = f"### FILE: tests/test_a.py\n{FENCE}python\nimport a\n{FENCE}\n"
    parsed = parse_file_blocks(reply, tmp_path)
    assert [(b.path.rel, b.content) for b in parsed.blocks] == [("tests/test_a.py", "import a\n")]
    assert parsed.problems == ()


def test_many_blocks_with_prose_between_them(tmp_path: Path) -> None:
    reply = (
        "Here are the tests.\n\n"
        f"### FILE: tests/test_a.py\n{FENCE}python\nA = 1\n{FENCE}\n"
        "And a second file, which covers the edge cases:\n\n"
        f"### FILE: tests/test_b.py\n{FENCE}\nB = 2\n{FENCE}\nThat's all.\n"
    )
    parsed = parse_file_blocks(reply, tmp_path)
    assert [(b.path.rel, b.content) for b in parsed.blocks] == [
        ("tests/test_a.py", "A = 1\n"),
        ("tests/test_b.py", "B = 2\n"),
    ]


def test_crlf_line_endings_are_normalised(tmp_path: Path) -> None:
    reply = f"### FILE: tests/test_a.py\r\n{FENCE}python\r\nx = 1\r\ny = 2\r\n{FENCE}\r\n"
    (block,) = parse_file_blocks(reply, tmp_path).blocks
    assert block.content == "x = 1\ny = 2\n"


@pytest.mark.parametrize(
    ("header", "path"),
    [
        ("### FILE: tests/test_a.py", "tests/test_a.py"),
        ("### FILE: `tests/test_a.py`", "tests/test_a.py"),
        ("### FILE: **tests/test_a.py**", "tests/test_a.py"),
        ("###FILE:tests/test_a.py", "tests/test_a.py"),
        ("## file: tests/test_a.py  ", "tests/test_a.py"),
    ],
)
def test_header_variants(tmp_path: Path, header: str, path: str) -> None:
    (block,) = parse_file_blocks(f"{header}\n\n{FENCE}py\npass\n{FENCE}\n", tmp_path).blocks
    assert block.path.rel == path


def test_longer_fence_keeps_inner_triple_backticks(tmp_path: Path) -> None:
    inner = f'DOC = """\n{FENCE}\nexample\n{FENCE}\n"""\n'
    reply = f"### FILE: tests/test_doc.py\n````python\n{inner}````\n"
    (block,) = parse_file_blocks(reply, tmp_path).blocks
    assert block.content == inner


def test_no_blocks_at_all(tmp_path: Path) -> None:
    parsed = parse_file_blocks("I cannot write tests for this.\n", tmp_path)
    assert parsed.blocks == ()
    assert parsed.problems == ()


def test_header_without_fence_is_a_problem_not_a_guess(tmp_path: Path) -> None:
    reply = f"### FILE: tests/test_a.py\nimport a\n\n### FILE: tests/test_b.py\n{FENCE}\nB = 1\n{FENCE}\n"
    parsed = parse_file_blocks(reply, tmp_path)
    assert [b.path.rel for b in parsed.blocks] == ["tests/test_b.py"]
    assert len(parsed.problems) == 1
    assert "tests/test_a.py" in parsed.problems[0]


def test_a_reply_cut_off_inside_a_block_writes_nothing_of_it(tmp_path: Path) -> None:
    reply = f"### FILE: tests/test_a.py\n{FENCE}python\nA = 1\n{FENCE}\n### FILE: b.py\n{FENCE}python\nx = 1\n"
    parsed = parse_file_blocks(reply, tmp_path)
    assert [b.path.rel for b in parsed.blocks] == ["tests/test_a.py"]
    (problem,) = parsed.problems
    assert "cut off inside the block for 'b.py'" in problem and "nothing of it" in problem


BODY = "def test_x():\n    assert 1\n"

#: One reply per shape a model may answer in: (shape, reply, the files expected, problems expected).
SHAPES = [
    (
        "header",
        f"### FILE: tests/test_x.py\n{FENCE}python\n{BODY}{FENCE}\n",
        ["tests/test_x.py"],
        0,
    ),
    (
        "info string after the language",
        f"Here it is:\n{FENCE}python tests/test_x.py\n{BODY}{FENCE}\n",
        ["tests/test_x.py"],
        0,
    ),
    ("info string alone", f"{FENCE}tests/test_x.py\n{BODY}{FENCE}\n", ["tests/test_x.py"], 0),
    (
        "info string as a title",
        f'{FENCE}python title="tests/test_x.py"\n{BODY}{FENCE}\n',
        ["tests/test_x.py"],
        0,
    ),
    (
        "first line a file comment",
        f"{FENCE}python\n# file: tests/test_x.py\n{BODY}{FENCE}\n",
        ["tests/test_x.py"],
        0,
    ),
    (
        "first line a bare path comment",
        f"{FENCE}python\n# tests/test_x.py\n{BODY}{FENCE}\n",
        ["tests/test_x.py"],
        0,
    ),
    (
        "bare path line before the fence",
        f"tests/test_x.py\n{FENCE}python\n{BODY}{FENCE}\n",
        ["tests/test_x.py"],
        0,
    ),
    (
        "bold path with a colon, a blank line, then the fence",
        f"**tests/test_x.py**:\n\n{FENCE}python\n{BODY}{FENCE}\n",
        ["tests/test_x.py"],
        0,
    ),
    (
        "two files in two shapes",
        f"{FENCE}python tests/test_x.py\n{BODY}{FENCE}\n`src/x.py`\n{FENCE}python\nX = 1\n{FENCE}\n",
        ["tests/test_x.py", "src/x.py"],
        0,
    ),
    (
        "a fence naming no path is prose",
        f"Run it like this:\n{FENCE}bash\npytest -q\n{FENCE}\n",
        [],
        0,
    ),
    (
        "a sentence naming a path is not a path line",
        f"Put this in tests/test_x.py:\n{FENCE}python\n{BODY}{FENCE}\n",
        [],
        0,
    ),
    ("cut off inside a fence that named its path", f"{FENCE}python tests/test_x.py\n{BODY}", [], 1),
    ("cut off after a bare path line", f"tests/test_x.py\n{FENCE}python\n{BODY}", [], 1),
]


@pytest.mark.parametrize(
    ("reply", "files", "problems"),
    [pytest.param(reply, files, problems, id=shape) for shape, reply, files, problems in SHAPES],
)
def test_reply_shapes(tmp_path: Path, reply: str, files: list[str], problems: int) -> None:
    parsed = parse_file_blocks(reply, tmp_path)
    assert [b.path.rel for b in parsed.blocks] == files
    assert len(parsed.problems) == problems
    for block in parsed.blocks:
        assert "file:" not in block.content and not block.content.startswith("# tests/")
        assert block.content in (BODY, "X = 1\n")


def test_a_path_in_another_shape_is_gated_as_well(tmp_path: Path) -> None:
    for reply in (
        f"{FENCE}python\n# file: ../x/test_x.py\n{BODY}{FENCE}\n",
        f"../x/test_x.py\n{FENCE}python\n{BODY}{FENCE}\n",
        f"{FENCE}python ../x/test_x.py\n{BODY}{FENCE}\n",
    ):
        parsed = parse_file_blocks(reply, tmp_path)
        assert parsed.blocks == ()
        (refusal,) = parsed.refused
        assert "'..'" in refusal.reason


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("tests/../../x/b.py", "'..'"),
        ("/etc/passwd", "absolute"),
        ("~/.ssh/config", "absolute"),
        (".git/hooks/pre-commit", ".git/"),
        ("tests\\..\\x.py", "backslash"),
        ("linked/test_x.py", "outside the work dir"),
    ],
)
def test_paths_are_gated_where_the_reply_is_parsed(tmp_path: Path, path: str, reason: str) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (work / "linked").symlink_to(outside, target_is_directory=True)
    reply = f"### FILE: {path}\n{FENCE}\nX = 1\n{FENCE}\n### FILE: tests/test_ok.py\n{FENCE}\nY = 2\n{FENCE}\n"
    parsed = parse_file_blocks(reply, work)
    assert [b.path.rel for b in parsed.blocks] == ["tests/test_ok.py"]
    (refusal,) = parsed.refused
    assert refusal.path == path and reason in refusal.reason


def test_paths_are_normalised(tmp_path: Path) -> None:
    reply = f"### FILE: ./tests//sub/./test_a.py\n{FENCE}\nA = 1\n{FENCE}\n"
    (block,) = parse_file_blocks(reply, tmp_path).blocks
    assert block.path.rel == "tests/sub/test_a.py"
    assert block.path.target() == tmp_path.resolve() / "tests" / "sub" / "test_a.py"
