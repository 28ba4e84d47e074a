"""The frameworks built on litellm, with litellm's stream repaired (``streamfix.install(
"litellm")``, the wire): ADK's ``LiteLlm`` and smolagents' ``LiteLLMModel`` over real HTTP,
with and without their own shims. Their shims keep doing what they did on litellm's
stock stream (the same outcome, turn for turn); the wire alone already fixes what was a
wire problem for the stock framework; and what each chunk costs is counted: the wire's
repairer assembles every chunk once, litellm's builder nothing, the framework's own shim
once more (it reads the core's events per chunk to drive the framework's own loop, see
``streamfix_adk`` and ``streamfix_smolagents``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import test_adk as adk
import test_smolagents as smol

import streamfix
from streamfix.testing import ReplayServer

pytestmark = pytest.mark.shim_only

#: scenarios with ADK's two tools: what ADK's e2e tests run, plus the ones the litellm
#: shim changes most (a late signature litellm drops on stock, a shared id, a restart)
ADK_CASES = [*adk.OPENAI_CASES, "f2-late-signature", "g3-shared-id", *adk.OLLAMA_CASES]
#: where the turn fails (a cut-off call) or the wire ends in its own verdict (I3)
ADK_ENDINGS = ["e4-truncated", "i3-restarted"]
SMOL_CASES = [case for case, (client, _) in smol.CASES.items() if client == "litellm"]


@dataclass
class Count:
    assemblers: int = 0
    feeds: list[Any] = field(default_factory=list)  # ToolCallAssembler.feed, every caller
    repaired: int = 0  # StreamRepairer.feed: the wire
    builder_assembled: int = 0  # litellm's stream_chunk_builder assembling itself

    def most_per_chunk(self) -> int:
        """How often the most assembled chunk object was fed to an assembler."""
        return max(Counter(id(chunk) for chunk in self.feeds).values())


@pytest.fixture
def count(monkeypatch: pytest.MonkeyPatch) -> Iterator[Count]:
    from streamfix_litellm import _builder

    counted = Count()
    init, feed = streamfix.ToolCallAssembler.__init__, streamfix.ToolCallAssembler.feed
    repair, assemble = streamfix.StreamRepairer.feed, _builder._assemble

    def counting_init(self: Any, *args: Any, **kwargs: Any) -> None:
        counted.assemblers += 1
        init(self, *args, **kwargs)

    def counting_feed(self: Any, chunk: Any, **kwargs: Any) -> Any:
        counted.feeds.append(chunk)
        return feed(self, chunk, **kwargs)

    def counting_repair(self: Any, chunk: Any) -> Any:
        counted.repaired += 1
        counted.feeds.append(chunk)  # its assembler's own loop takes the chunk, once
        return repair(self, chunk)

    def counting_assemble(*args: Any) -> Any:
        counted.builder_assembled += 1
        return assemble(*args)

    monkeypatch.setattr(streamfix.ToolCallAssembler, "__init__", counting_init)
    monkeypatch.setattr(streamfix.ToolCallAssembler, "feed", counting_feed)
    monkeypatch.setattr(streamfix.StreamRepairer, "feed", counting_repair)
    monkeypatch.setattr(_builder, "_assemble", counting_assemble)
    yield counted


def _adk_turn(server: ReplayServer, name: str, *patches: str) -> adk.Outcome:
    streamfix.uninstall()
    if patches:
        assert streamfix.install(*patches) == list(patches)
    try:
        return adk.run_agent(server, adk.model_for(server, name), stream=True)
    finally:
        streamfix.uninstall()


def _shown(outcome: adk.Outcome) -> tuple[Any, ...]:
    raised = None if outcome.raised is None else type(outcome.raised)
    return outcome.ran, outcome.text, outcome.sent_back, outcome.error_events, raised


# --- ADK --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ADK_CASES)
def test_adk_on_the_repaired_stream_is_right(streamfix_server: ReplayServer, name: str) -> None:
    """Both shims, and the wire alone under stock ADK: the calls ADK runs and sends back
    (with their signatures), the turn's text, as the non-streamed turn."""
    for patches in (("adk", "litellm"), ("litellm",)):
        outcome = _adk_turn(streamfix_server, name, *patches)
        if name == "g3-shared-id":  # the wire's ids are unique (R3): ADK answers both
            assert outcome.raised is None and outcome.error_events == []
            assert sorted(outcome.ran, key=repr) == sorted(adk.expected_ran(name), key=repr)
        else:
            adk.assert_right(outcome, name)


@pytest.mark.parametrize("name", ADK_ENDINGS)
def test_adk_shim_decides_the_turn_as_without_the_wire(
    streamfix_server: ReplayServer, name: str
) -> None:
    """A cut-off call (E4), arguments restarted (I3): the wire ends the stream in
    litellm's error after everything complete; ADK's shim stops there and decides the
    turn from its own assembly of the same chunks, as when litellm's stream just ends
    (the same error response, the same calls run), never the exception."""
    alone = _adk_turn(streamfix_server, name, "adk")
    both = _adk_turn(streamfix_server, name, "adk", "litellm")
    assert both.raised is None
    assert _shown(both) == _shown(alone)


def test_adk_assemblies_per_chunk(streamfix_server: ReplayServer, count: Count) -> None:
    """ADK with both shims: ADK's shim sends every chunk through the core itself and marks
    the stream (``_shimkit.assembled_downstream``), so the wire passes it on as litellm
    gives it (no repairer fed); litellm's own end-of-stream builder assembles it for its
    logging as it did before the wire (twice a request on litellm 1.110: 4 builds for
    ADK's two requests), and nothing else does."""
    outcome = _adk_turn(streamfix_server, "b3-same-index", "adk", "litellm")
    adk.assert_right(outcome, "b3-same-index")
    assert count.repaired == 0
    assert count.builder_assembled <= 4
    assert count.most_per_chunk() <= 1 + count.builder_assembled // 2


# --- smolagents ---------------------------------------------------------------------------------


@pytest.mark.parametrize("patches", [("smolagents", "litellm"), ("litellm",)])
@pytest.mark.parametrize("case", SMOL_CASES)
def test_smolagents_on_the_repaired_stream_runs_both_calls(
    streamfix_server: ReplayServer, case: str, patches: tuple[str, ...]
) -> None:
    """``LiteLLMModel`` over the repaired stream: each call its own index, so even stock
    smolagents' index-keyed ``agglomerate_stream_deltas`` runs both tools (it glues them
    on litellm's stock stream: test_smolagents.py)."""
    assert streamfix.install(*patches) == list(patches)
    client, model_id = smol.CASES[case]
    streamed = smol.run_agent(smol.model_for(streamfix_server, client, model_id), stream=True)
    expected = sorted(smol.WEATHER_AND_TIME, key=repr)
    assert streamed.ran == streamed.calls == expected


def test_smolagents_assemblies_per_chunk(streamfix_server: ReplayServer, count: Count) -> None:
    """smolagents with both shims: the wire's repairer once per chunk litellm made (5 for
    b3-same-index), smolagents' aggregator once per delta of the step (its live view and
    the step's message from one assembler: 6 deltas, the usage chunk's included, and the
    end of the stream), litellm's builder none."""
    assert streamfix.install("smolagents", "litellm") == ["smolagents", "litellm"]
    client, model_id = smol.CASES["litellm-openai-b3"]
    smol.run_agent(smol.model_for(streamfix_server, client, model_id), stream=True)
    assert count.builder_assembled == 0
    assert count.assemblers == 2
    assert (count.repaired, len(count.feeds) - count.repaired) == (5, 7)
