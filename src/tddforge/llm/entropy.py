"""Token entropy from logprobs: how unsure the model was, for the cover loop's reliability levels."""

from __future__ import annotations

import math
from collections.abc import Sequence

from tddforge.llm.base import TokenLogprob


def token_entropy(token: TokenLogprob) -> float:
    """Shannon entropy (nats) of the renormalised top-k list, or the surprisal without one.

    Without alternatives the distribution is unknown, so the chosen token's
    surprisal ``-logprob`` stands in: it is the entropy's expected-value term.
    """
    if not token.top:
        return max(0.0, -token.logprob)
    logs = [logprob for _, logprob in token.top]
    peak = max(logs)
    # Log-sum-exp keeps tiny probabilities (the API's -9999.0 floor) from underflowing the sum.
    log_total = peak + math.log(sum(math.exp(value - peak) for value in logs))
    entropy = 0.0
    for value in logs:
        log_p = value - log_total
        entropy -= math.exp(log_p) * log_p
    return max(0.0, entropy)


def mean_token_entropy(logprobs: Sequence[TokenLogprob]) -> float | None:
    """Mean per-token entropy in nats (top-k renormalised; surprisal fallback); None if empty."""
    if not logprobs:
        return None
    return sum(token_entropy(token) for token in logprobs) / len(logprobs)
