"""A pytest plugin bench/builtin_vs_pynguin.py copies beside a suite: it shuffles the tests
(``BENCH_SHUFFLE_SEED``) and writes their outcomes to ``BENCH_RESULTS``."""

import json
import os
import random

import pytest

OUTCOMES = {}
ERRORS = []


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    seed = os.environ.get("BENCH_SHUFFLE_SEED")
    if seed:
        random.Random(int(seed)).shuffle(items)


def pytest_collectreport(report):
    if report.failed:
        ERRORS.append(f"{report.nodeid}: {str(report.longrepr)[-300:]}")


def pytest_runtest_logreport(report):
    if report.failed:
        OUTCOMES[report.nodeid] = "failed"
    else:
        OUTCOMES.setdefault(report.nodeid, "passed")


def pytest_sessionfinish():
    with open(os.environ["BENCH_RESULTS"], "w") as handle:
        json.dump({"outcomes": OUTCOMES, "errors": ERRORS}, handle)
