"""``streamfix.testing.run_case``: the one case loop of the doctor's drivers (what they
report for a framework's result, an async framework's coroutine, or what it raised)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from streamfix import testing
from streamfix.testing import Outcome, run_case


def _response(content: str, *calls: tuple[str, str]) -> Any:
    tool_calls = [
        SimpleNamespace(function=SimpleNamespace(name=name, arguments=arguments))
        for name, arguments in calls
    ]
    message = SimpleNamespace(content=content, tool_calls=tool_calls)
    return SimpleNamespace(choices=[SimpleNamespace(message=message)])


def test_the_result_read_as_a_response_by_default() -> None:
    outcome = run_case(lambda: _response("hi", ("get_time", '{"zone": "UTC"}')))
    assert outcome.calls == (("get_time", {"zone": "UTC"}),)
    assert outcome.text == "hi"


def test_a_coroutine_is_run_to_its_end_and_read() -> None:
    async def collect() -> list[str]:
        return ["a", "b"]

    assert run_case(collect, lambda parts: Outcome(text="".join(parts))) == Outcome(text="ab")


@pytest.mark.parametrize(
    ("error", "crash"), [(KeyError("choices"), True), (RuntimeError("rate limited"), False)]
)
def test_what_the_framework_raised_is_the_outcome(error: Exception, crash: bool) -> None:
    def run() -> None:
        raise error

    async def run_async() -> None:
        raise error

    for runner in (run, run_async):
        outcome = run_case(runner, lambda _: pytest.fail("never read"))
        assert outcome == testing.failure(error)
        assert outcome.crash is crash
