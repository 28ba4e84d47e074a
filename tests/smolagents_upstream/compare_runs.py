"""Compare smolagents' own test suite run stock and run patched (two JUnit XML reports).

    python tests/smolagents_upstream/compare_runs.py STOCK.xml PATCHED.xml

Fails (exit 1) if a test that passes stock does not pass patched. Tests that fail stock
too (the sdist does not ship upstream's fixtures, data files or optional dependencies)
are listed, not counted against the patch.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET


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


def main(stock_path: str, patched_path: str) -> int:
    stock, patched = outcomes(stock_path), outcomes(patched_path)
    worse = sorted(t for t, o in stock.items() if o == "passed" and patched.get(t) != "passed")
    missing = sorted(set(stock) ^ set(patched))
    better = sorted(t for t, o in stock.items() if o != "passed" and patched.get(t) == "passed")
    broken_both = sorted(t for t, o in stock.items() if o in ("failed", "error"))
    count = {o: sum(1 for v in patched.values() if v == o) for o in set(patched.values())}
    print(f"patched: {count}; stock fails/errors that fail patched too: {len(broken_both)}")
    ran = sum(1 for o in stock.values() if o == "passed")  # a test failing both runs never ran
    print(f"ran: {ran} of {len(stock)} tests pass stock, {ran - len(worse)} of them pass patched")
    for test in broken_both:
        print(f"  fails stock too ({stock[test]}): {test}")
    for test in better:
        print(f"  fixed by the patch: {test}")
    for test in missing:
        print(f"  ran in one run only: {test}")
    for test in worse:
        print(f"  REGRESSION (passes stock, {patched.get(test)} patched): {test}")
    return 1 if worse or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
