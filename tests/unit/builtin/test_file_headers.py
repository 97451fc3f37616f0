"""Binary headers composed from the signatures a module's format detection compares."""

from __future__ import annotations

import textwrap

import pytest

from tddforge.builtin.file_headers import MIN_LENGTH, composed_headers


def headers(source: str) -> dict[str, tuple[bytes, ...]]:
    return composed_headers(textwrap.dedent(source))


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        # a prefix, by startswith, a slice from 0, or a slice with no start
        ("head.startswith(b'BM')", [b"BM"]),
        ("head[0:2] == b'BM'", [b"BM"]),
        ("b'BM' == head[:2]", [b"BM"]),
        # alternatives: one header each
        ("head[:6] in (b'GIF87a', b'GIF89a')", [b"GIF87a", b"GIF89a"]),
        ("head.startswith((b'II*\\x00', b'MM\\x00*'))", [b"II*\x00", b"MM\x00*"]),
        # at an offset
        ("head[4:8] == b'ftyp'", [b"\x00\x00\x00\x00ftyp"]),
        # joined by ``and``: one header with both in place
        ("head.startswith(b'RIFF') and head[8:12] == b'WEBP'", [b"RIFF\x00\x00\x00\x00WEBP"]),
        # a byte of a set, by ``in`` on a bytes literal
        ("head[:1] == b'P' and head[1:2] in b'123'", [b"P1"]),
        # two values compared in one ``and``: a header each
        ("a.startswith(b'X') and b.startswith(b'Y')", [b"X", b"Y"]),
        # what says nothing of where the bytes are
        ("head.endswith(b'END')", []),
        ("b'BM' in head", []),
        ("head[n:8] == b'ftyp'", []),
        # a check that raises unless the bytes are there: the header that passes it
        ("head[12:16] != b'IHDR'", [bytes(12) + b"IHDR"]),
        ("head == ''", []),
        # two signatures that disagree at the same place: none
        ("head.startswith(b'AB') and head[1:2] == b'C'", []),
    ],
)
def test_a_comparison_gives_a_header_with_its_bytes_in_place(
    condition: str, expected: list[bytes]
) -> None:
    found = headers(f"def detect(head, a, b, n):\n    if {condition}:\n        return 1\n")
    composed = list(found.get("detect", ()))
    assert [h[: len(e)] for h, e in zip(composed, expected, strict=False)] == expected
    assert len(composed) == len(expected)
    # zeros after the signature, as far as a parser reads on
    assert all(
        len(h) >= MIN_LENGTH and h[len(e) :] == bytes(len(h) - len(e))
        for h, e in zip(composed, expected, strict=False)
    )


def test_headers_are_kept_per_scope_as_the_constants_are() -> None:
    found = headers(
        """
        MAGIC = b'\\xd0\\xcf'

        class Reader:
            def sniff(self, data):
                return data[:2] == b'PK'

        def other(data):
            if data.startswith(b'%PDF'):
                return 'pdf'
        """
    )
    assert set(found) == {"Reader.sniff", "other"}
    assert found["Reader.sniff"][0].startswith(b"PK")


def test_a_signature_too_far_in_or_unparsable_source_gives_nothing() -> None:
    assert headers("def f(x):\n    return x[999999:1000001] == b'ok'\n") == {}
    assert composed_headers("def f(:\n") == {}
