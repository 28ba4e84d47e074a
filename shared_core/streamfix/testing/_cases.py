"""What a live check sends, and where: :class:`LiveCase` (one request), :data:`LIVE_CASES`
(``streamfix doctor --live``'s four) and :class:`LiveTarget` (the server).

Plain data, importing nothing else of ``streamfix.testing``: the drivers' :class:`Driver`
(``_doctor``) names these types, and the live check (``_live``) runs the drivers, so the
imports go one way (``_cases`` <- ``_doctor`` <- ``_drivers`` <- ``_live``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

__all__ = ["LIVE_CASES", "LiveCase", "LiveTarget"]

Api = Literal["openai", "ollama"]
"""The server APIs a live check speaks."""


@dataclass(frozen=True)
class LiveCase:
    """One request: OpenAI chat ``messages``, OpenAI function ``tools`` (``()`` for text
    only) and request ``options`` (``tool_choice``, ``parallel_tool_calls``,
    ``max_tokens``, ``frequency_penalty``...). Temperature 0 and the target's seed are
    always sent too."""

    name: str
    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...] = ()
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


def _tool(name: str, description: str, argument: str, about: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {argument: {"type": "string", "description": about}},
                "required": [argument],
            },
        },
    }


_WEATHER = _tool("get_weather", "The weather in a city.", "city", "The city's name.")
_TIME = _tool("get_time", "The time in a time zone.", "zone", "An IANA time zone.")


def _user(text: str) -> tuple[dict[str, Any], ...]:
    return ({"role": "user", "content": text},)


LIVE_CASES: tuple[LiveCase, ...] = (
    LiveCase(
        "one-call",
        _user("What is the weather in Paris? Use the get_weather tool."),
        (_WEATHER, _TIME),
        MappingProxyType({"tool_choice": "auto", "max_tokens": 256}),
    ),
    LiveCase(
        "parallel-calls",
        _user("What is the weather in Paris, and the time there? Call both tools at once."),
        (_WEATHER, _TIME),
        MappingProxyType(
            {
                "tool_choice": "auto",
                "parallel_tool_calls": True,
                "frequency_penalty": 0.5,
                "max_tokens": 256,
            }
        ),
    ),
    LiveCase(
        "truncated-call",
        _user("What is the weather in Paris? Use the get_weather tool."),
        (_WEATHER, _TIME),
        MappingProxyType({"tool_choice": "required", "max_tokens": 12}),
    ),
    LiveCase(
        "text-only",
        _user("Say hello in one short sentence."),
        (),
        MappingProxyType({"max_tokens": 64}),
    ),
)
"""The default cases of ``streamfix doctor --live``."""


@dataclass(frozen=True)
class LiveTarget:
    """A live server: ``url`` as the user gave it (an OpenAI-compatible ``.../v1``, or an
    Ollama root), the ``model``, its ``api``, and the ``seed`` sent with every request."""

    url: str
    model: str
    api: Api
    seed: int = 0
