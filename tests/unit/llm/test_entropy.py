"""Mean token entropy over logprobs."""

from __future__ import annotations

import math

import pytest

from tddforge.llm import TokenLogprob, mean_token_entropy
from tddforge.llm.entropy import token_entropy

LN_QUARTER = math.log(0.25)


def uniform(n: int) -> tuple[tuple[str, float], ...]:
    return tuple((f"t{i}", math.log(1.0 / n)) for i in range(n))


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        (TokenLogprob("a", LN_QUARTER, uniform(4)), math.log(4)),
        (TokenLogprob("a", math.log(0.5), uniform(2)), math.log(2)),
        (TokenLogprob("a", 0.0, (("a", 0.0),)), 0.0),
        # Top-k that does not sum to 1 is renormalised: two equal halves of 0.2 → ln 2.
        (
            TokenLogprob("a", math.log(0.2), (("a", math.log(0.2)), ("b", math.log(0.2)))),
            math.log(2),
        ),
        # The API's -9999 floor contributes nothing.
        (TokenLogprob("a", 0.0, (("a", 0.0), ("b", -9999.0))), 0.0),
        # 0.9 / 0.1 → -(0.9 ln 0.9 + 0.1 ln 0.1)
        (
            TokenLogprob("a", math.log(0.9), (("a", math.log(0.9)), ("b", math.log(0.1)))),
            -(0.9 * math.log(0.9) + 0.1 * math.log(0.1)),
        ),
        # No top list: surprisal of the chosen token.
        (TokenLogprob("a", -1.5), 1.5),
        (TokenLogprob("a", 0.0), 0.0),
    ],
)
def test_token_entropy(token: TokenLogprob, expected: float) -> None:
    assert token_entropy(token) == pytest.approx(expected)


def test_mean_over_tokens() -> None:
    tokens = [TokenLogprob("a", LN_QUARTER, uniform(4)), TokenLogprob("b", 0.0, (("b", 0.0),))]
    assert mean_token_entropy(tokens) == pytest.approx(math.log(4) / 2)


def test_mean_mixes_top_lists_and_fallback() -> None:
    tokens = (TokenLogprob("a", -2.0), TokenLogprob("b", math.log(0.5), uniform(2)))
    assert mean_token_entropy(tokens) == pytest.approx((2.0 + math.log(2)) / 2)


def test_no_logprobs_gives_none() -> None:
    assert mean_token_entropy([]) is None


def test_more_uncertain_tokens_score_higher() -> None:
    confident = [TokenLogprob("a", -0.01, (("a", -0.01), ("b", -5.0)))]
    unsure = [TokenLogprob("a", LN_QUARTER, uniform(4))]
    assert mean_token_entropy(unsure) > mean_token_entropy(confident)  # type: ignore[operator]
