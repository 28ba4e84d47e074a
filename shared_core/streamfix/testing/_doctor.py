"""What ``streamfix doctor`` and the shims' drivers share: :class:`Driver`,
:class:`Outcome` and :func:`judge`.

Each framework has a *driver* (``streamfix_<fw>/_doctor.py``, named by the ``DOCTOR``
attribute of the shim's ``streamfix.patches`` entry point): a function that runs one
corpus scenario through that framework's own streaming code (its real chunk types, its
real aggregation) with the model client replaced by one replaying the scenario's chunks,
and reports what the framework ended up with (:class:`Outcome`: the calls it would run, the
text, the error it surfaced). :func:`judge` compares an outcome with what the scenario must
give. A driver imports its framework inside its drive function, never at import.

The helpers (:func:`run_case`, :func:`fresh_chunks`, :func:`failure`,
:func:`parse_arguments`, :func:`openai_stream`, :func:`litellm_stream`, :func:`drain`,
:func:`adrain`) are what several drivers need, kept here so that no shim imports another.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
from collections.abc import AsyncIterable, Awaitable, Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from .._errors import StreamFixError
from ._corpus import Dialect, Scenario

if TYPE_CHECKING:
    from ._cases import LiveCase, LiveTarget

__all__ = [
    "Driver",
    "Outcome",
    "adrain",
    "drain",
    "failure",
    "fresh_chunks",
    "judge",
    "litellm_stream",
    "message_outcome",
    "openai_stream",
    "parse_arguments",
    "response_outcome",
    "run_case",
]

_CRASHES = (KeyError, TypeError, IndexError, AttributeError, ValueError)

_T = TypeVar("_T")


@dataclass(frozen=True)
class Outcome:
    """What a framework ended up with for one streamed response.

    ``calls`` are ``(name, arguments)`` of the calls it would run (``arguments`` the parsed
    object, or the raw text when it is not one JSON object); ``error`` is the failure it
    surfaced (an error response, or the text of the exception it raised), ``crash`` true
    when that was an unhandled low-level exception (``KeyError``, ``JSONDecodeError``...)
    rather than an error the framework reports. ``signatures`` is whether each call kept
    a thought signature, when the framework carries them (else ``None``);
    ``reasoning_signatures`` the signatures its message keeps in its reasoning metadata
    (F5 ``reasoning_details``, F6 ``thinking_blocks``), when its message has a place for
    them (else ``None``).
    """

    calls: tuple[tuple[str, Any], ...] = ()
    text: str | None = None
    error: str | None = None
    crash: bool = False
    signatures: tuple[bool, ...] | None = None
    reasoning_signatures: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The outcome as plain JSON data."""
        return {
            "calls": [{"name": name, "arguments": args} for name, args in self.calls],
            "text": self.text,
            "error": self.error,
            "crash": self.crash,
        }


@dataclass(frozen=True)
class Driver:
    """One framework the doctor can drive.

    ``name`` is its patch name (what ``streamfix.install`` takes), ``package`` the
    distribution whose version is shown, ``dialect`` the wire its scenarios speak,
    ``module`` the module whose presence means the framework is installed, ``drive`` the
    function running one scenario through it, ``what`` a short description of the code
    it drives. ``live`` (``streamfix doctor --live``): the function sending one
    :class:`~streamfix.testing.LiveCase` to a live server through the framework's real
    client over HTTP, streamed or not (``live(target, case, stream)``), ``None`` when the
    column has none; ``live_apis`` the server APIs it speaks (``"openai"``,
    ``"ollama"``); ``live_options`` false when the framework cannot send the case's
    request options itself (shell_gpt's command line): :func:`~streamfix.testing.live_check`
    then adds them to its request on the way.
    """

    name: str
    package: str
    dialect: Dialect
    module: str
    drive: Callable[[Scenario], Outcome]
    what: str
    live: Callable[[LiveTarget, LiveCase, bool], Outcome] | None = None
    live_apis: tuple[str, ...] = ("openai",)
    live_options: bool = True

    def available(self) -> bool:
        """Whether the framework (and what its driver needs) is importable."""
        try:
            return importlib.util.find_spec(self.module) is not None
        except (ImportError, ValueError):
            return False

    def version(self) -> str | None:
        """The installed version of ``package`` (``None`` when it is not installed)."""
        from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415 (heavy)

        try:
            return version(self.package)
        except PackageNotFoundError:
            return None


# -- helpers for drivers -----------------------------------------------------------------


def fresh_chunks(scenario: Scenario) -> list[dict[str, Any]]:
    """Deep copies of the scenario's chunks (a framework may change what it is given)."""
    return [copy.deepcopy(chunk) for chunk in scenario.chunks]


def failure(error: BaseException) -> Outcome:
    """The outcome of a framework that raised ``error``: a crash when it is a low-level
    exception (``KeyError``, ``ValueError``...) and not a :class:`streamfix.StreamFixError`."""
    crash = isinstance(error, _CRASHES) and not isinstance(error, StreamFixError)
    return Outcome(error=f"{type(error).__name__}: {error}", crash=crash)


def parse_arguments(text: Any) -> Any:
    """Arguments as the parsed object, or the raw value when not one JSON object."""
    if isinstance(text, dict):
        return text
    try:
        parsed = json.loads(text)
    except (TypeError, ValueError):
        return text
    return parsed if isinstance(parsed, dict) else text


def message_outcome(message: Any) -> Outcome:
    """The outcome of an OpenAI-shaped assistant message object (``tool_calls`` with
    ``function.name`` / ``function.arguments``, ``content``): litellm's ``Message``,
    smolagents' ``ChatMessage``, the openai SDK's ``ChatCompletionMessage``."""
    calls = tuple(
        (call.function.name, parse_arguments(call.function.arguments))
        for call in message.tool_calls or []
    )
    return Outcome(
        calls, message.content or "", reasoning_signatures=_reasoning_signatures(message)
    )


_REASONING = ("reasoning_details", "thinking_blocks")


def response_outcome(response: Any) -> Outcome:
    """The outcome of an OpenAI-shaped response object's first choice (the openai SDK's
    ``ChatCompletion``, litellm's ``ModelResponse``): :func:`message_outcome` of its
    message."""
    return message_outcome(response.choices[0].message)


def run_case(run: Callable[[], Any], read: Callable[[Any], Outcome] = response_outcome) -> Outcome:
    """One case through a framework, as every driver reports it: ``read`` of what
    ``run()`` returned (a coroutine is run to its end first, with ``asyncio.run``); what
    ``run()`` raised is the outcome instead (:func:`failure`: the framework's own error,
    or a crash). ``run`` holds what must be undone after the call (``with``, ``finally``).
    """
    try:
        result = run()
        if isinstance(result, Coroutine):
            import asyncio  # noqa: PLC0415 (only for an async framework: asyncio loads socket)

            result = asyncio.run(result)
    except Exception as error:  # what the framework raised is the result
        return failure(error)
    return read(result)


def drain(open_stream: Callable[[], Iterable[_T]]) -> tuple[list[_T], Exception | None]:
    """Every item of the stream ``open_stream()`` returns, and what opening or reading it
    raised (``None`` if it ended); the stream closed either way (its ``close()``).

    A synchronous HTTP stream left unread (its consumer raised) holds a pooled connection
    until the garbage collector finalizes it, at any allocation; httpx then closes it under
    its connection pool's lock, and when that collection runs while the same thread holds
    the lock (its next request on the same pool) the thread waits on itself for ever
    (encode/httpcore#990). So the stream is closed here, and when anything raised, the
    error's frames are cleared (its traceback still prints) and the garbage collected at
    once, here, where no lock is held: that closes what the library itself left open on
    the way (litellm's Responses bridge, raising mid-stream or before it returns)."""
    items: list[_T] = []
    stream: Iterable[_T] | None = None
    try:
        stream = open_stream()
        for item in stream:
            items.append(item)
    except Exception as error:  # what the library raised is the result
        _release(error)
        return items, error
    finally:
        close = getattr(stream, "close", None)
        if callable(close):
            close()
    return items, None


async def adrain(
    open_stream: Callable[[], Awaitable[AsyncIterable[_T]]],
) -> tuple[list[_T], Exception | None]:
    """:func:`drain` of an asynchronous stream (``await open_stream()``, closed with its
    ``aclose()``)."""
    items: list[_T] = []
    stream: AsyncIterable[_T] | None = None
    try:
        stream = await open_stream()
        async for item in stream:
            items.append(item)
    except Exception as error:  # what the library raised is the result
        _release(error)
        return items, error
    finally:
        aclose = getattr(stream, "aclose", None)
        if callable(aclose):
            await aclose()
    return items, None


def _release(error: BaseException) -> None:
    """What ``error`` and the exceptions it carries (its cause and context, and those it
    keeps as attributes: litellm's ``original_exception``) hold in their frames' locals
    let go (the streams a library abandoned among them), then collected now."""
    import gc  # noqa: PLC0415
    import traceback  # noqa: PLC0415

    seen: set[int] = set()
    todo: list[BaseException | None] = [error]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if current.__traceback__ is not None:
            traceback.clear_frames(current.__traceback__)
        todo += (current.__cause__, current.__context__)
        todo += (v for v in vars(current).values() if isinstance(v, BaseException))
    gc.collect(1)  # what the call allocated is young; a full collection takes 0.2 s with litellm


def _reasoning_signatures(message: Any) -> tuple[str, ...] | None:
    """The signatures in a message's ``reasoning_details`` and ``thinking_blocks`` (as
    attributes, or among litellm's ``provider_specific_fields``); ``None`` when the
    message has neither, nor a declared field for them."""
    declared = getattr(type(message), "model_fields", {})
    extra = getattr(message, "provider_specific_fields", None)
    found: list[str] = []
    carried = False
    for name in _REASONING:
        entries = getattr(message, name, None)
        if entries is None and isinstance(extra, dict):
            entries = extra.get(name)
        carried = carried or entries is not None or name in declared
        for entry in entries or ():
            signature = (
                entry.get("signature")
                if isinstance(entry, dict)
                else getattr(entry, "signature", None)
            )
            if signature:
                found.append(str(signature))
    return tuple(found) if carried else None


def openai_stream(bodies: Iterable[dict[str, Any]]) -> Iterator[Any]:
    """The chunks as the openai SDK's ``Stream`` yields them: ``ChatCompletionChunk``
    built with ``construct`` (no validation); an event carrying ``error`` raises
    ``openai.APIError`` with the provider's message, as the SDK does. Needs ``openai``."""
    openai: Any = importlib.import_module("openai")
    chunk_type: Any = importlib.import_module("openai.types.chat").ChatCompletionChunk
    httpx: Any = importlib.import_module("httpx")
    for body in bodies:
        error = body.get("error")
        if error:
            message = error.get("message") if isinstance(error, dict) else str(error)
            request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
            raise openai.APIError(message=str(message), request=request, body=error)
        yield chunk_type.construct(**body)


def litellm_stream(bodies: Iterable[dict[str, Any]]) -> list[Any]:
    """The chunks as litellm's own stream wrappers yield them: ``ModelResponseStream``
    objects, a tool-call entry without ``function`` given an empty one (litellm's
    ``Function(arguments="", name=None)``). Needs ``litellm``."""
    stream_type: Any = importlib.import_module("litellm.types.utils").ModelResponseStream
    chunks = []
    for body in bodies:
        for choice in body.get("choices") or []:
            for entry in (choice.get("delta") or {}).get("tool_calls") or []:
                entry.setdefault("function", {})
        chunks.append(stream_type(**body))
    return chunks


# -- judging -----------------------------------------------------------------------------


def judge(scenario: Scenario, outcome: Outcome) -> tuple[bool, str]:
    """Whether ``outcome`` is right for ``scenario``, and a short reason when it is not.

    - provider error (E5): the framework surfaces an error carrying the provider's text;
    - truncated arguments (E4): it reports the failure (not a crash) and runs no call
      with incomplete arguments;
    - otherwise: no error, exactly the expected calls (names and arguments, in order),
      the expected text where the framework reports it, and every expected thought
      signature (on calls, and in the reasoning metadata: F5, F6) kept where the
      framework carries them.
    """
    if scenario.error is not None:
        why = _judge_provider_error(scenario.error, outcome)
    elif scenario.truncated:
        why = _judge_truncated(outcome)
    else:
        why = _judge_complete(scenario, outcome)
    return not why, why


def _judge_provider_error(text: str, outcome: Outcome) -> str:
    if outcome.error is None:
        return "provider error swallowed"
    if text not in outcome.error:
        return f"provider's error text lost ({_short(outcome.error)})"
    return ""


def _judge_truncated(outcome: Outcome) -> str:
    broken = [name for name, args in outcome.calls if not isinstance(args, dict)]
    if broken:
        return f"incomplete call handed on: {broken[0]}"
    if outcome.error is None:
        return "truncated call dropped silently"
    return f"crash: {_short(outcome.error)}" if outcome.crash else ""


def _judge_complete(scenario: Scenario, outcome: Outcome) -> str:
    if outcome.error is not None:
        return f"{'crash' if outcome.crash else 'error'}: {_short(outcome.error)}"
    expected = [(call["name"], call["arguments"]) for call in scenario.calls]
    if list(outcome.calls) != expected:
        return _calls_diff(expected, list(outcome.calls))
    if outcome.text is not None and outcome.text != scenario.text:
        return f"text {outcome.text!r}"
    if outcome.signatures is not None and scenario.signatures:
        wanted = tuple(sig is not None for sig in scenario.signatures)
        if any(w and not got for w, got in zip(wanted, outcome.signatures, strict=False)):
            return "thought signature dropped"
    kept = outcome.reasoning_signatures
    if kept is not None and any(s not in kept for s in scenario.reasoning_signatures()):
        return "reasoning signature dropped"
    return ""


def _calls_diff(expected: list[tuple[str, Any]], got: list[tuple[str, Any]]) -> str:
    if len(got) != len(expected):
        names = ", ".join(name for name, _ in got) or "none"
        return f"{len(got)} of {len(expected)} calls ({names})"
    for (name, args), (got_name, got_args) in zip(expected, got, strict=True):
        if name != got_name:
            return f"call {name} became {got_name}"
        if args != got_args:
            return f"{name} arguments {_short(json.dumps(got_args))}"
    return "calls differ"  # pragma: no cover - equal lists are handled by the caller


def _short(text: str, size: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= size else text[: size - 1] + "\u2026"
