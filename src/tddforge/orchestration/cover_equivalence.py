"""The mutants a cover run sets aside as equivalent: the writer's claims, and the rules' marks.

A writer may claim a mutant equivalent (``EQUIVALENT: <mutant id>: <reason>``).
A claim is accepted only for a mutant the previous attempt left alive; it is
then recorded, kept out of later instructions, and never trusted: the strict
score still counts the mutant, and the report gives the score without the
claimed ones beside it, with each claim's verdict in the final suite (a killed
one refutes its claim). Survivors that ``mutation.equivalence`` finds likely
equivalent are listed with the rule's reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from tddforge.cover_contract import GeneratedSuite
from tddforge.mutation.mutant import diff_line
from tddforge.mutation.report import MutationReport
from tddforge.orchestration.cover_records import (
    ClaimRecord,
    FinalClaim,
    LikelyEquivalent,
)


def check_claims(
    suite: GeneratedSuite, before: MutationReport | None, attempt: int
) -> list[ClaimRecord]:
    """``suite``'s claims (attempt ``attempt``), each accepted when it names a mutant
    ``before`` (the previous attempt's mutation run) left alive."""
    alive = {r.mutant.id: r.mutant for r in before.alive} if before else {}
    records: list[ClaimRecord] = []
    for claim in suite.claims:
        mutant = alive.get(claim.mutant_id)
        change = ""
        if mutant is not None and before is not None:
            old, new = diff_line(before.source, mutant)
            change = f"{old.strip()} → {new.strip()}"
        records.append(
            {
                "id": claim.mutant_id,
                "reason": claim.reason,
                "attempt": attempt,
                "accepted": mutant is not None,
                "line": mutant.line if mutant else None,
                "change": change,
            }
        )
    return records


def score_without(report: MutationReport | None, claims: Mapping[str, ClaimRecord]) -> float | None:
    """The strict score without the claimed mutants still alive; None with no claims."""
    if report is None or not claims:
        return None
    score = report.strict_score_without(claims)
    return None if score is None else round(score, 2)


def final_claims(
    claims: Mapping[str, ClaimRecord], report: MutationReport | None
) -> list[FinalClaim]:
    """Every accepted claim with its mutant's verdict in the final suite."""
    results = {r.mutant.id: r for r in report.results} if report else {}
    out: list[FinalClaim] = []
    for claim in claims.values():
        result = results.get(claim["id"])
        verdict = result.verdict if result else "not scored"
        if result is not None and result.verdict == "killed":
            verdict = f"killed by {result.killer}: the claim is refuted"
        out.append({**claim, "final_verdict": verdict})
    return out


def likely_records(report: MutationReport | None) -> list[LikelyEquivalent]:
    """The survivors of ``report`` a rule marks likely equivalent, with the reason."""
    if report is None:
        return []
    reasons = report.likely_equivalent()
    out: list[LikelyEquivalent] = []
    for r in report.alive:
        if r.mutant.id in reasons:
            old, new = diff_line(report.source, r.mutant)
            out.append(
                {
                    "id": r.mutant.id,
                    "line": r.mutant.line,
                    "change": f"{old.strip()} → {new.strip()}",
                    "reason": reasons[r.mutant.id],
                }
            )
    return out
