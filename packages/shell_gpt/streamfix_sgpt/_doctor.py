"""``streamfix doctor``'s driver for shell_gpt: a corpus scenario through
``Handler.get_completion``, its completion function replaced by one replaying the
scenario's chunks. shell_gpt is imported when a scenario is driven.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

from streamfix import testing

__all__ = ["DRIVER", "drive"]


@contextlib.contextmanager
def _sgpt_home() -> Iterator[None]:
    """shell_gpt writes its configuration (and asks for a key) when first imported: the
    first import happens with a throw-away home and a dummy key."""
    if "sgpt.handlers.handler" in sys.modules:
        yield
        return
    saved = {name: os.environ.get(name) for name in ("HOME", "OPENAI_API_KEY")}
    home = tempfile.mkdtemp(prefix="streamfix-doctor-sgpt-")
    os.environ["HOME"] = home
    os.environ.setdefault("OPENAI_API_KEY", "sk-streamfix-doctor")
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """shell_gpt's ``Handler.get_completion`` (the default handler) with its completion
    function streaming openai ``ChatCompletionChunk`` objects; tool functions record the
    calls they are run with."""
    with _sgpt_home():
        handler: Any = importlib.import_module("sgpt.handlers.handler")
        function: Any = importlib.import_module("sgpt.function")
        default: Any = importlib.import_module("sgpt.handlers.default_handler")
    responses = [testing.fresh_chunks(scenario)]
    ran: list[tuple[str, Any]] = []

    def completion(**_: Any) -> Iterator[Any]:
        bodies = (
            responses.pop(0)
            if responses
            else list(testing.text_chunks(scenario.follow_up, "openai"))
        )
        return testing.openai_stream(bodies)

    def get_function(name: str) -> Callable[..., str]:
        def tool(**kwargs: Any) -> str:
            ran.append((name, kwargs))
            return "ok"

        return tool

    saved = {
        "completion": handler.completion,
        "use_litellm": handler.use_litellm,
        "additional_kwargs": handler.additional_kwargs,
        "get_function": handler.get_function,
    }
    saved_function = function.get_function
    handler.completion, handler.use_litellm, handler.additional_kwargs = completion, False, {}
    handler.get_function = function.get_function = get_function
    role = SimpleNamespace(name="ShellGPT", role="You are ShellGPT.")
    functions = [
        {"type": "function", "function": {"name": call["name"], "parameters": {}}}
        for call in scenario.calls
    ] or [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    messages = [{"role": "user", "content": "go"}]
    try:
        output = "".join(
            default.DefaultHandler(role, markdown=False).get_completion(
                model="streamfix",
                temperature=0.0,
                top_p=1.0,
                messages=messages,
                functions=functions,
                caching=False,
            )
        )
    except Exception as error:
        outcome = testing.failure(error)
        return testing.Outcome(tuple(ran), error=outcome.error, crash=outcome.crash)
    finally:
        for name, value in saved.items():
            setattr(handler, name, value)
        function.get_function = saved_function
    reported = output if "not run" in output else None
    text = None if ran or reported else output
    return testing.Outcome(tuple(ran), text, reported)


DRIVER = testing.Driver("sgpt", "shell-gpt", "openai", "sgpt", drive, "Handler.get_completion")
"""What ``streamfix doctor`` runs for shell_gpt (the ``DOCTOR`` of the ``sgpt`` patch)."""
