"""shell_gpt's ``Handler.get_completion``, with streamed tool calls assembled by streamfix.

Stock shell_gpt keeps one ``name`` and one ``arguments`` string per response and appends
every tool-call fragment to them, whatever its index: two calls become one corrupt
string. It also runs a call only on ``finish_reason == "tool_calls"``, so calls that end
with ``stop`` (Ollama, Gemini) never run. Here the stream goes through
:class:`streamfix.ToolCallAssembler`: text is yielded as it arrives, and at the end every
call runs in order with its own arguments; the assistant message added to the history
carries all the calls and each gets its own tool message.
"""

from __future__ import annotations

import uuid
from collections.abc import Generator
from typing import Any

import streamfix

__all__ = ["get_completion", "run_tool_calls"]

# The roles for which shell_gpt never offers functions.
_PLAIN_ROLES = ("Shell Command Generator", "Code Generator", "Shell Command Descriptor")


def get_completion(
    self: Any,
    model: str,
    temperature: float,
    top_p: float,
    messages: list[dict[str, Any]],
    functions: list[dict[str, Any]] | None,
) -> Generator[str, None, None]:
    """A drop-in body for ``sgpt.handlers.handler.Handler.get_completion`` (uncached)."""
    from sgpt.handlers import handler  # the module globals, read at call time as stock does

    if self.role.name in _PLAIN_ROLES:
        functions = None
    if functions:  # the same request stock shell_gpt sends
        handler.additional_kwargs["tool_choice"] = "auto"
        handler.additional_kwargs["tools"] = functions
        handler.additional_kwargs["parallel_tool_calls"] = False
    response = handler.completion(
        model=model,
        temperature=temperature,
        top_p=top_p,
        messages=messages,
        stream=True,
        **handler.additional_kwargs,
    )
    assembler = streamfix.ToolCallAssembler(tools=functions)
    ids: dict[int, str] = {}  # each call's id by position, for a call that cannot run
    try:
        yield from _text(response, assembler, ids)
        message = assembler.finish().with_unique_ids()  # tool results answer by id (G3)
    except KeyboardInterrupt:
        response.close()
        return
    except streamfix.ProviderStreamError as error:
        import click  # shell_gpt's CLI library

        # No traceback, nothing cached: click prints "Error: <the provider's words>".
        text = f"the provider reported an error: {error.provider_message}"
        raise click.ClickException(text) from None
    except (streamfix.TruncatedToolCallError, streamfix.MalformedToolCallError) as error:
        yield from _not_run(error, ids)
        return
    if message.tool_calls:
        yield from run_tool_calls(messages, message)
        yield from self.get_completion(
            model=model,
            temperature=temperature,
            top_p=top_p,
            messages=messages,
            functions=functions,
            caching=False,
        )


def _text(
    response: Any, assembler: streamfix.ToolCallAssembler, ids: dict[int, str]
) -> Generator[str, None, None]:
    """The response fed to ``assembler``: choice 0's text as it arrives; each call's id
    by position into ``ids``."""
    for chunk in response:
        for event in assembler.feed(chunk):
            if getattr(event, "choice", 0) != 0:
                continue
            if isinstance(event, streamfix.TextDelta):
                yield event.text
            elif isinstance(event, streamfix.ToolCallStarted | streamfix.ToolCallUpdated):
                ids[event.position] = event.id or ids.get(event.position, "")


def run_tool_calls(
    messages: list[dict[str, Any]], message: streamfix.AssembledMessage
) -> Generator[str, None, None]:
    """Run every call in order; record them as one assistant message plus tool messages.

    Output and history have the shape stock shell_gpt gives one call, for each call.
    """
    from sgpt.config import cfg
    from sgpt.function import get_function

    ids = [call.id or f"call_{uuid.uuid4().hex[:24]}" for call in message.tool_calls]
    messages.append(
        {
            "role": "assistant",
            "content": message.content or None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call_id, call in zip(ids, message.tool_calls, strict=True)
            ],
        }
    )
    yield "\n"
    for call_id, call in zip(ids, message.tool_calls, strict=True):
        joined_args = ", ".join(f'{key}="{value}"' for key, value in call.parsed.items())
        yield f"> @FunctionCall `{call.name}({joined_args})` \n\n"
        result = get_function(call.name)(**call.parsed)
        if cfg.get("SHOW_FUNCTIONS_OUTPUT") == "true":
            yield f"```text\n{result}\n```\n"
        messages.append({"role": "tool", "content": result, "tool_call_id": call_id})


def _not_run(error: streamfix.StreamFixError, ids: dict[int, str]) -> Generator[str, None, None]:
    """One line per call that cannot run, saying why: its arguments cut off, not one JSON
    object, or no name at all (wire-shapes E9: the call is named by its id). The
    ``@FunctionCall`` marker keeps the response out of shell_gpt's cache, as it does for
    every response with a function call."""
    why = (
        "its arguments are truncated (incomplete JSON)"
        if isinstance(error, streamfix.TruncatedToolCallError)
        else "its arguments are malformed (not one JSON object)"
    )
    diagnostics = error.message.diagnostics if error.message else []
    nameless = {d.position for d in diagnostics if d.code == "nameless-call"}
    yield "\n"
    for position, name in error.partial_names.items():
        if position in nameless:
            call = f"tool call {ids[position]!r}" if ids.get(position) else "a tool call"
            yield f"> @FunctionCall `unnamed tool` not run: {call} never got a name.\n"
        else:
            yield f"> @FunctionCall `{name or 'unnamed tool'}` not run: {why}.\n"
    complete = error.message.tool_calls if error.message else []
    if complete:
        listed = ", ".join(f"`{call.name}`" for call in complete)
        yield f"> @FunctionCall {listed} not run either: the batch was incomplete.\n"
