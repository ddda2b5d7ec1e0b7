"""torch's own OpInfo database as an oracle: one item per in-scope OpInfo (tests/opinfo/harness.py).

CI runs at most ``MAX_SAMPLES`` samples per OpInfo and dtype; ``tools/opinfo_report.py`` runs them
all and prints the pass figures. OpInfos in ``known_failures.KNOWN_FAILURES`` run as strict xfail.
"""
from __future__ import annotations

import pytest

from tests.opinfo.common import COMMON
from tests.opinfo.exclusions import EXCLUDED, RANDOM
from tests.opinfo.harness import ALL, IN_SCOPE, run_opinfo
from tests.opinfo.known_failures import KNOWN_FAILURES

MAX_SAMPLES = 3


def _params():
    for name in IN_SCOPE:
        marks = ()
        if name in KNOWN_FAILURES:
            marks = (pytest.mark.xfail(reason=KNOWN_FAILURES[name], strict=True),)
        yield pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", list(_params()))
def test_opinfo(name):
    if name in KNOWN_FAILURES:  # its failing sample may lie beyond MAX_SAMPLES: run up to the first
        failures = run_opinfo(name, max_samples=None, stop_at_first=True)
    else:
        failures = run_opinfo(name, max_samples=MAX_SAMPLES)
    assert not failures, "\n".join(f"{d} sample {i}: {m}" for d, i, m in failures[:5])


def test_lists_are_consistent():
    # the budget (<= 20 known failures, none common) is printed by tools/opinfo_report.py
    for table in (EXCLUDED, RANDOM, KNOWN_FAILURES):
        assert set(table) <= set(ALL), set(table) - set(ALL)
        assert all(isinstance(r, str) and r for r in table.values())
    assert not set(EXCLUDED) & (COMMON | set(KNOWN_FAILURES) | set(RANDOM))
