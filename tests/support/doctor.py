"""One doctor column checked on the corpus, as every framework's tests check theirs."""

from __future__ import annotations

from collections.abc import Iterable

import streamfix
from streamfix import testing

__all__ = ["assert_doctor_column"]


def assert_doctor_column(
    column: str, patch: str, losses: Iterable[str], dialect: testing.Dialect = "openai"
) -> None:
    """``streamfix doctor``'s ``column`` on every scenario of ``dialect``: it is the column
    of ``patch`` (what ``streamfix.install`` takes), stock loses exactly ``losses``,
    patched gets every scenario right (0 failing patched cells), and the driver leaves
    installed what was installed before it (a wire it installs for a run is undone)."""
    assert testing.DRIVERS[column].name == patch
    before = set(streamfix.installed())
    scenarios = testing.scenarios(dialect)
    cells = [
        (name, *testing.stock_and_patched(column, scenario)) for name, scenario in scenarios.items()
    ]
    lost = {name for name, stock, _ in cells if not testing.judge(scenarios[name], stock)[0]}
    assert lost == set(losses)
    failing = [
        n for n, _, patched in cells if not (patched and testing.judge(scenarios[n], patched)[0])
    ]
    assert failing == []
    assert set(streamfix.installed()) == before
