"""One ADK agent turn, as the end-to-end tests run it: an ``Agent`` with the given tools on
``model``, run by ``InMemoryRunner`` streamed (``StreamingMode.SSE``) or not."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["final_text", "run_runner"]


def run_runner(
    model: Any,
    tools: Sequence[Callable[..., Any]],
    question: str,
    on_event: Callable[[Any], None],
    *,
    stream: bool = True,
    instruction: str = "Answer with the tools.",
) -> None:
    """Run one user turn, handing every event to ``on_event`` as it comes (so what came
    before an exception is kept); what the runner raises propagates."""
    from google.adk.agents import Agent  # google-adk only where it is run
    from google.adk.agents.run_config import RunConfig, StreamingMode
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    agent = Agent(name="assistant", model=model, instruction=instruction, tools=list(tools))
    runner = InMemoryRunner(agent=agent, app_name="streamfix")
    mode = StreamingMode.SSE if stream else StreamingMode.NONE

    async def go() -> None:
        session = await runner.session_service.create_session(app_name="streamfix", user_id="u")
        message = types.Content(role="user", parts=[types.Part.from_text(text=question)])
        async for event in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message=message,
            run_config=RunConfig(streaming_mode=mode),
        ):
            on_event(event)

    asyncio.run(go())


def final_text(event: Any) -> str:
    """The text of a final (not partial) event, ``""`` for any other."""
    if event.partial or not event.content or not event.content.parts:
        return ""
    return "".join(part.text for part in event.content.parts if part.text)
