"""What the tests of the OpenAI Agents SDK's two chat-completions models share
(``OpenAIChatCompletionsModel`` on the openai wire, ``LitellmModel`` on litellm's): one
``Runner.run_streamed`` of a scenario, read as the first model response's calls and text,
and the checks of what ran after it."""

from __future__ import annotations

from typing import Any

from conftest import Got, capture

from streamfix import testing


def _got(ran: Any) -> Got:
    result, _ = ran
    calls: list[tuple[str, Any, Any]] = []
    text: list[str] = []
    for item in result.raw_responses[0].output if result.raw_responses else ():
        if item.type == "function_call":
            calls.append((item.name, testing.parse_arguments(item.arguments), item.call_id))
        elif item.type == "message":
            text += [part.text for part in item.content if part.type == "output_text"]
    return Got(calls, "".join(text))


def run(driver: Any, scenario: testing.Scenario, agent: Any) -> tuple[Got, Any]:
    """The driver's streamed run of ``agent``: what the user got (:class:`Got`, with the
    doctor's outcome), and the run's result and events (``None`` where it raised)."""
    results: list[Any] = []

    async def go() -> Any:
        results.append(await driver.run_streamed(agent))
        return results[-1]

    return capture(scenario, go, _got, driver.read), (results[0] if results else None)


def assert_tools_ran(scenario: testing.Scenario, got: Got, ran: Any) -> None:
    """Where the calls came right, the tools ran with their ids (``tool_called``) and the
    follow-up text is the final output."""
    if ran is None or not scenario.calls:
        return
    result, events = ran
    called = [e.item.raw_item.call_id for e in events if getattr(e, "name", "") == "tool_called"]
    assert called == got.ids
    assert result.final_output == scenario.follow_up


def events(ran: Any) -> list[str]:
    """The run's stream events, by type and name."""
    _, streamed = ran
    return [f"{event.type}:{getattr(event, 'name', '')}" for event in streamed]


def signatures(ran: Any) -> tuple[Any, ...]:
    """The thought signature each ``function_call`` item of the first response keeps in
    its ``provider_data`` (where the SDK sends it back from)."""
    result, _ = ran
    items = [i for i in result.raw_responses[0].output if i.type == "function_call"]
    return tuple(testing.provider_data(item).get("thought_signature") for item in items)
