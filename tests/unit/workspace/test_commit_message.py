from __future__ import annotations

import pytest

from tddforge.workspace.git import SUBJECT_LIMIT, commit_message

LONG = (
    "refactor(cycle 3): after a strike adds the next two rolls: extract the frame scoring"
    " into small helpers and name the magic numbers so that the rules read as in the kata"
)


@pytest.mark.parametrize(
    ("subject", "body", "expected"),
    [
        ("green(cycle 1): one is a string", "", "green(cycle 1): one is a string"),
        (
            "refactor: rules table",
            "why it reads better",
            "refactor: rules table\n\nwhy it reads better",
        ),
        ("a  subject\twith   odd spacing", "", "a subject with odd spacing"),
        (
            LONG,
            "",
            "refactor(cycle 3): after a strike adds the next two rolls: extract...\n\n" + LONG,
        ),
    ],
)
def test_commit_messages(subject: str, body: str, expected: str) -> None:
    message = commit_message(subject, body)
    assert message == expected
    assert len(message.split("\n", 1)[0]) <= SUBJECT_LIMIT
