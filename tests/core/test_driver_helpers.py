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


class _Stream:
    """A stream that records whether it was closed, raising after ``good`` items."""

    def __init__(self, good: int, total: int = 3) -> None:
        self.good, self.total, self.closed = good, total, False

    def __iter__(self) -> Any:
        for number in range(self.total):
            if number == self.good:
                raise RuntimeError("cut")
            yield number

    def close(self) -> None:
        self.closed = True

    async def _items(self) -> Any:
        for item in self:
            yield item

    def __aiter__(self) -> Any:
        return self._items()

    async def aclose(self) -> None:
        self.closed = True


@pytest.mark.parametrize("good", [3, 1, 0])
def test_drain_reads_what_came_and_closes_the_stream(good: int) -> None:
    stream = _Stream(good)
    items, error = testing.drain(lambda: stream)
    assert items == list(range(min(good, 3)))
    assert (error is None) == (good == 3)
    assert stream.closed


@pytest.mark.parametrize("good", [3, 1])
def test_adrain_reads_what_came_and_acloses_the_stream(good: int) -> None:
    import asyncio

    stream = _Stream(good)

    async def start() -> _Stream:
        return stream

    items, error = asyncio.run(testing.adrain(start))
    assert items == list(range(min(good, 3)))
    assert (error is None) == (good == 3)
    assert stream.closed


def test_drain_an_error_before_the_stream_is_the_result() -> None:
    def start() -> Any:
        raise ConnectionError("refused")

    items, error = testing.drain(start)
    assert items == []
    assert isinstance(error, ConnectionError)


def test_drain_closes_what_the_library_abandoned_when_it_raised() -> None:
    """A library that raises with a stream of its own still open in its frame (litellm's
    Responses bridge): the stream is finalized (its ``finally`` runs) before ``drain``
    returns, not by a later collection (in the tests automatic collection is off)."""
    closed: list[str] = []

    def inner() -> Any:
        try:
            yield 1
            yield 2
        finally:
            closed.append("inner")

    def library() -> Any:
        source = inner()
        next(source)
        cycle: list[Any] = [source]
        cycle.append(cycle)  # only the collector frees it
        raise RuntimeError("the library's parser crashed")

    items, error = testing.drain(library)
    assert (items, str(error)) == ([], "the library's parser crashed")
    assert closed == ["inner"]
    assert error is not None
    assert error.__traceback__ is not None  # the traceback kept (its frames' locals cleared)
