"""No chunk assembled twice: every ``ToolCallAssembler.feed`` of a repaired litellm stream
is its one repairer's, once per chunk litellm's stream handler made; litellm's own
``stream_chunk_builder`` at the end of the stream (its logging, cost and cache) reads the
messages that repairer settled; the Ollama parser runs no assembler of its own.

Two exceptions, on error paths only:

- Ollama's error line is read by the core on its own in the parser (to raise litellm's
  exception where stock raises ``KeyError``): one more feed, of that one line;
- when an async stream fails, litellm (1.110: ``_record_partial_usage_for_failure``)
  builds a partial response from the chunks so far for its failure logging before the
  exception leaves its ``__anext__``, so before the wire learns of it: the builder
  assembles those chunks itself (the repairer's messages exist only once it finished,
  and it cannot be read before without changing it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper
from wire_http import SCENARIOS, stream

import streamfix
from streamfix.testing import ReplayServer

pytestmark = pytest.mark.shim_only

#: where the core also reads one error line on its own (the Ollama parser)
ERROR_LINE = {"ollama-oom-error"}
#: litellm builds a partial response when an async stream fails (1.110; not 1.80)
_LOGS_PARTIAL = hasattr(CustomStreamWrapper, "_record_partial_usage_for_failure")


@dataclass
class Count:
    """What the core was asked per stream."""

    assemblers: int = 0  # ToolCallAssembler objects made
    feeds: list[Any] = field(default_factory=list)  # every chunk ToolCallAssembler.feed got
    repaired: list[Any] = field(default_factory=list)  # every chunk StreamRepairer.feed got
    builder_assembled: int = 0  # the builder's own assembly (not the stream's repair)
    builder_wired: int = 0  # the builder reading the stream's repair


@pytest.fixture
def count(monkeypatch: pytest.MonkeyPatch) -> Iterator[Count]:
    from streamfix_litellm import _builder

    counted = Count()
    init, feed = streamfix.ToolCallAssembler.__init__, streamfix.ToolCallAssembler.feed
    repair = streamfix.StreamRepairer.feed
    assemble, wire_of = _builder._assemble, _builder.wire_of

    def counting_init(self: Any, *args: Any, **kwargs: Any) -> None:
        counted.assemblers += 1
        init(self, *args, **kwargs)

    def counting_feed(self: Any, chunk: Any, **kwargs: Any) -> Any:
        counted.feeds.append(chunk)
        return feed(self, chunk, **kwargs)

    def counting_repair(self: Any, chunk: Any) -> Any:
        counted.repaired.append(chunk)
        counted.feeds.append(chunk)  # its assembler's own loop takes the chunk, once
        return repair(self, chunk)

    def counting_assemble(*args: Any) -> Any:
        counted.builder_assembled += 1
        return assemble(*args)

    def counting_wire_of(*args: Any) -> Any:
        found = wire_of(*args)
        counted.builder_wired += found is not None
        return found

    monkeypatch.setattr(streamfix.ToolCallAssembler, "__init__", counting_init)
    monkeypatch.setattr(streamfix.ToolCallAssembler, "feed", counting_feed)
    monkeypatch.setattr(streamfix.StreamRepairer, "feed", counting_repair)
    monkeypatch.setattr(_builder, "_assemble", counting_assemble)
    monkeypatch.setattr(_builder, "wire_of", counting_wire_of)
    yield counted


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_each_chunk_is_assembled_once(
    streamfix_server: ReplayServer, patched: None, count: Count, mode: str, name: str
) -> None:
    stream(streamfix_server, name, mode)
    scenario = SCENARIOS[name]
    line = 1 if name in ERROR_LINE else 0
    partial = 1 if scenario.error is not None and mode == "async" and _LOGS_PARTIAL else 0
    assert count.builder_assembled == partial
    partial_feeds = len(count.repaired) - 1 if partial else 0  # the chunks before the error
    assert count.assemblers == 1 + line + partial
    assert len(count.feeds) == len(count.repaired) + line + partial_feeds
    assert len({id(chunk) for chunk in count.repaired}) == len(count.repaired)
    if scenario.error is None:  # litellm built the complete response from the repair
        assert count.builder_wired == 1


def test_the_numbers(streamfix_server: ReplayServer, patched: None, count: Count) -> None:
    """One stream of each shape: the chunks litellm's handler made, what the core was
    fed (the table in the shim's notes: feeds == chunks, one assembler)."""
    for name in ("b1-three-commands", "ollama-call-per-line", "text"):
        before = len(count.feeds), len(count.repaired), count.assemblers
        stream(streamfix_server, name)
        feeds = len(count.feeds) - before[0]
        repaired = len(count.repaired) - before[1]
        assert feeds == repaired and count.assemblers - before[2] == 1
