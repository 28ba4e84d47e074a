"""``streamfix doctor --live URL``: the live checks (:func:`streamfix.testing.live_check`)
of every case through every installed framework that speaks the server's API, as one
:class:`LiveReport`.

Each case also gets the server's answer to the case sent directly, non-streamed (the
*reference* column: what the server gives without any framework); each framework's cells
are judged against the non-streamed answer to the request that framework sent itself.
A case whose reference is a server error is shown, never judged or crashed on; a cell
whose stream carried none of the reference is the server's own loss (``"server-loss"``,
:func:`server_loss_lines` says so), never a failing patch.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..testing import (
    DRIVERS,
    LIVE_CASES,
    SERVER_LOSS,
    LiveCase,
    LiveError,
    LiveResult,
    LiveTarget,
    Outcome,
    detect_api,
    live_applies,
    live_check,
    reference_outcome,
)
from ._quiet import quiet_frameworks

__all__ = ["LiveReport", "first_model", "live_frameworks", "run_live", "server_loss_lines"]


def live_frameworks() -> list[str]:
    """The doctor columns that have a live check, in the doctor's order."""
    return [name for name in DRIVERS if DRIVERS[name].live is not None]


def first_model(url: str, api: str, timeout: float = 10.0) -> str:
    """The first model the server lists (``/v1/models`` or ``/api/tags``)."""
    httpx: Any = importlib.import_module("httpx")
    base = url.rstrip("/")
    if api == "ollama":
        probe, key, field_name = f"{base.removesuffix('/v1')}/api/tags", "models", "name"
    else:
        probe, key, field_name = f"{base}/models", "data", "id"
    try:
        listed = httpx.get(probe, timeout=timeout).json()[key]
        return str(listed[0][field_name])
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as error:
        why = f"{type(error).__name__}: {error}"
        raise LiveError(f"no model listed at {probe} ({why}); pass --model") from None


@dataclass
class LiveReport:
    """The live matrix: per case, the direct reference and each framework's result."""

    target: LiveTarget
    cases: list[str] = field(default_factory=list)
    references: dict[str, tuple[Outcome, str | None]] = field(default_factory=dict)
    results: list[LiveResult] = field(default_factory=list)
    frameworks: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every patched cell with a usable reference passes."""
        return all(r.patched_ok for r in self.results if r.usable)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "target": {
                "url": self.target.url,
                "model": self.target.model,
                "api": self.target.api,
                "seed": self.target.seed,
            },
            "frameworks": self.frameworks,
            "references": {
                case: {"outcome": outcome.to_dict(), "finish_reason": finish}
                for case, (outcome, finish) in self.references.items()
            },
            "results": [result.to_dict() for result in self.results],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def run_live(
    url: str,
    model: str | None = None,
    api: Literal["openai", "ollama"] | None = None,
    frameworks: Sequence[str] | None = None,
    cases: Sequence[LiveCase] = LIVE_CASES,
    seed: int = 0,
) -> LiveReport:
    """Every case through every framework (default: every column with a live check),
    stock and patched, against the server at ``url``, the frameworks' own log lines kept
    quiet. Raises :class:`~streamfix.testing.LiveError` when the server cannot be reached."""
    found = api or detect_api(url)
    target = LiveTarget(url, model or first_model(url, found), found, seed)
    report = LiveReport(target, [case.name for case in cases])
    names = list(frameworks or live_frameworks())
    for case in cases:
        report.references[case.name] = reference_outcome(target, case)
    with quiet_frameworks():
        for name in names:
            driver = DRIVERS[name]
            info: dict[str, Any] = {"version": driver.version()}
            report.frameworks[name] = info
            if not driver.available():
                info["status"] = "not installed"
            elif not live_applies(name, target):
                info["status"] = f"n/a for {target.api} servers"
            else:
                info["status"] = "checked"
                report.results.extend(live_check(name, target, case) for case in cases)
    return report


def server_loss_lines(report: LiveReport) -> list[str]:
    """One line per case some cell of which is the server's own loss: the frameworks,
    and that the server's stream carries none of its non-streamed answer."""
    lines = []
    for case in report.cases:
        names = [
            r.framework
            for r in report.results
            if r.case == case and "server-loss" in (r.stock_verdict, r.patched_verdict)
        ]
        if names:
            lines.append(f"  {case}: server-loss ({', '.join(names)}): {SERVER_LOSS}")
    return lines
