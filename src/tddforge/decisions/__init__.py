"""Pure decisions: measured facts in, verdicts and next actions out; no I/O, no model call.

``red_validation`` (is a failing test red for the right reason?),
``traceability`` (which test covers which spec case), ``kata`` (the kata
agents' judges and the supervisor's next actions), ``cover_suite`` (per-test
stability, selection and pruning), ``reliability``, ``critique`` and
``router`` (the cover loop's levels, critique and ENHANCE/FINISH). They sit
below ``languages``, ``agents`` and ``orchestration`` so that all three can
use them; each is tested with tables of cases in ``tests/unit/decisions``.
"""
