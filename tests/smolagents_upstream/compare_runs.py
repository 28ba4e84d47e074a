"""Compare a framework's own test suite run stock and run patched (two JUnit XML reports).

    python tests/smolagents_upstream/compare_runs.py STOCK.xml PATCHED.xml

Prints each run's counts (passed, failed, errors, skipped), then the tests compared: a
test *ran* in a run when it passed or failed there; one that errored (at setup: a fixture,
data file or optional dependency the sdist does not ship) or was skipped did not run. A
test that ran in neither run proves nothing: it is counted and listed as not run, never
as kept. Fails (exit 1) if a test that passes stock does not pass patched, or if the two
runs do not hold the same tests. Tests that fail stock too are listed, not counted against
the patch.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter

OUTCOMES = ("passed", "failed", "error", "skipped")


def outcomes(path: str) -> dict[str, str]:
    """test id -> passed / failed / error / skipped."""
    found: dict[str, str] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        outcome = "passed"
        for tag in ("failure", "error", "skipped"):
            if case.find(tag) is not None:
                outcome = tag.replace("failure", "failed")
                break
        if found.get(name, "passed") == "passed":  # a teardown error overrides a pass
            found[name] = outcome
    return found


def counts(run: dict[str, str]) -> str:
    tally = Counter(run.values())
    return ", ".join(f"{tally[o]} {o}" for o in OUTCOMES)


def ran(outcome: str | None) -> bool:
    return outcome in ("passed", "failed")


def main(stock_path: str, patched_path: str) -> int:
    stock, patched = outcomes(stock_path), outcomes(patched_path)
    both = sorted(set(stock) & set(patched))
    missing = sorted(set(stock) ^ set(patched))
    compared = [t for t in both if ran(stock[t]) or ran(patched[t])]
    not_run = [t for t in both if not ran(stock[t]) and not ran(patched[t])]
    worse = sorted(t for t, o in stock.items() if o == "passed" and patched.get(t) != "passed")
    better = sorted(t for t in both if stock[t] != "passed" and patched[t] == "passed")
    fails_both = [t for t in both if stock[t] == "failed" and patched[t] == "failed"]
    print(f"stock:   {counts(stock)}")
    print(f"patched: {counts(patched)}")
    not_run_tally = Counter(
        "errors in both runs" if "error" in (stock[t], patched[t]) else "skipped in both runs"
        for t in not_run
    )
    detail = ", ".join(f"{n} {why}" for why, n in sorted(not_run_tally.items()))
    print(
        f"ran: {len(compared)} of {len(both)} tests, compared per test id; "
        f"not run: {len(not_run)}" + (f" ({detail})" if detail else "")
    )
    for test in not_run:
        if "error" in (stock[test], patched[test]):
            print(f"  not run (error stock and patched): {test}")
    for test in fails_both:
        print(f"  fails stock and patched: {test}")
    for test in better:
        print(f"  fixed by the patch ({stock[test]} stock): {test}")
    for test in missing:
        print(f"  in one run only: {test}")
    for test in worse:
        print(f"  REGRESSION (passes stock, {patched.get(test)} patched): {test}")
    if worse or missing:
        return 1
    print(
        f"of the {len(compared)} tests that ran, none that passes stock fails patched"
        + (f"; {len(not_run)} did not run in either and prove nothing" if not_run else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
