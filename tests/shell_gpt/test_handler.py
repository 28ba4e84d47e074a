"""shell_gpt's real handler, fed real ``openai`` (and ``litellm``) chunks per wire shape.

Each case runs stock shell_gpt and the patched one on the same stream. The completion
function is replaced by a fake that records every request and streams one scripted
response per request: the tool calls first, then the model's answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from typing import Any

import click
import pytest
import support
from support import Chunk, report_stock_loss

ANSWER = "All done."


# --- stream builders (tests/support, spelled as shell_gpt sees them) ----------------------


#: The SDKs' spelling as shell_gpt sees it: every entry typed, with a ``function`` object.
tc = partial(support.tc, typed="always", function_always=True)
#: One choice whose delta starts with the assistant role, from an OpenAI model.
chunk = partial(support.chunk, delta={"role": "assistant"}, id="chatcmpl-sgpt", model="gpt-4o-mini")


def text(answer: str = ANSWER) -> list[Chunk]:
    return [chunk(content=answer[:4]), chunk(content=answer[4:]), chunk(finish="stop")]


def cmd(command: str) -> str:
    return json.dumps({"shell_command": command})


def pieces(text_: str, size: int = 5) -> list[str]:
    return [text_[i : i + size] for i in range(0, len(text_), size)]


def sequential(commands: list[str], finish: str = "tool_calls") -> list[Chunk]:
    """One call after another, each at its own index (the standard shape)."""
    out = []
    for i, command in enumerate(commands):
        out.append(chunk(tc(i, f"call_{i}", "execute_shell_command", "")))
        out += [chunk(tc(i, args=part)) for part in pieces(cmd(command))]
    return [*out, chunk(finish=finish)]


# --- driving the real handler ------------------------------------------------------------


class FakeCompletion:
    """Stands in for ``sgpt.handlers.handler.completion``: records each request and
    streams the next scripted response as real chunk objects."""

    def __init__(self, responses: list[list[Chunk]], kind: str) -> None:
        self.responses = list(responses)
        self.kind = kind
        self.requests: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> Iterator[Any]:
        self.requests.append({**kwargs, "messages": json.loads(json.dumps(kwargs["messages"]))})
        return iter(support.convert(self.kind, self.responses.pop(0)))


def run(
    responses: list[list[Chunk]],
    kind: str = "openai",
    monkeypatch: pytest.MonkeyPatch | None = None,
) -> tuple[str, list[dict[str, Any]], FakeCompletion]:
    """Run the default handler once; the printed text, the history, the fake client."""
    from sgpt.function import get_openai_schemas
    from sgpt.handlers import handler
    from sgpt.handlers.default_handler import DefaultHandler
    from sgpt.role import DefaultRoles, SystemRole

    fake = FakeCompletion(responses, kind)
    assert monkeypatch is not None
    monkeypatch.setattr(handler, "completion", fake)
    monkeypatch.setattr(handler, "use_litellm", kind == "litellm")
    monkeypatch.setattr(handler, "additional_kwargs", {})
    role = SystemRole.get(DefaultRoles.DEFAULT.value)
    messages = [{"role": "system", "content": role.role}, {"role": "user", "content": "go"}]
    output = "".join(
        DefaultHandler(role, markdown=False).get_completion(
            model="gpt-4o-mini",
            temperature=0.0,
            top_p=1.0,
            messages=messages,
            functions=get_openai_schemas(),
            caching=False,
        )
    )
    return output, messages, fake


def ran(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "tool"]


def assert_all_ran(messages: list[dict[str, Any]], commands: list[str]) -> None:
    """One assistant message with every call, then one tool message per call, in order."""
    assistant = [m for m in messages if m["role"] == "assistant"]
    assert len(assistant) == 1
    calls = assistant[0]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [
        {"shell_command": c} for c in commands
    ]
    assert [c["function"]["name"] for c in calls] == ["execute_shell_command"] * len(commands)
    tool_ids = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert tool_ids == [c["id"] for c in calls]
    assert len(set(tool_ids)) == len(tool_ids)
    assert ran(messages) == [f"ran: {c}" for c in commands]


KINDS = ["openai", "litellm"]


# --- the multi-call issue: three shell commands -------------------------------------------

THREE = ["ls -la", "pwd", 'echo "done"']


@pytest.mark.stock_failure
@pytest.mark.parametrize("kind", KINDS)
def test_three_commands_stock_glues_them_into_one_corrupt_call(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(json.JSONDecodeError) as raised:
        run([sequential(THREE), text()], kind, monkeypatch)
    report_stock_loss(f"sgpt three commands {kind}", str(raised.value), "Extra data")


@pytest.mark.parametrize("kind", KINDS)
def test_three_commands_each_run_with_their_own_arguments(
    kind: str, monkeypatch: pytest.MonkeyPatch, patched: None
) -> None:
    output, messages, fake = run([sequential(THREE), text()], kind, monkeypatch)
    assert_all_ran(messages, THREE)
    for command in THREE:
        assert f"ran: {command}" in output
    assert output.count("@FunctionCall") == 3
    assert output.endswith(ANSWER)
    # The follow-up request carries the whole turn: assistant calls, then tool results.
    follow_up = fake.requests[1]["messages"]
    assert [m["role"] for m in follow_up] == ["system", "user", "assistant", "tool", "tool", "tool"]


# --- one case per wire shape -------------------------------------------------------------


def interleaved(commands: list[str]) -> list[Chunk]:
    """B1: fragments of different indices alternate."""
    heads = [chunk(tc(i, f"call_{i}", "execute_shell_command", "")) for i in range(len(commands))]
    parts = [pieces(cmd(c), 3) for c in commands]
    body = []
    for step in range(max(map(len, parts))):
        for i, p in enumerate(parts):
            if step < len(p):
                body.append(chunk(tc(i, args=p[step])))
    return [*heads, *body, chunk(finish="tool_calls")]


def one_chunk_with_finish(commands: list[str]) -> list[Chunk]:
    """A1: every complete call in one delta, with the finish reason."""
    calls = [tc(i, f"call_{i}", "execute_shell_command", cmd(c)) for i, c in enumerate(commands)]
    return [chunk(*calls, finish="tool_calls")]


def ollama_same_index(commands: list[str]) -> list[Chunk]:
    """B3: Ollama sends every call at index 0, no ids, each arguments whole."""
    calls = [chunk(tc(0, name="execute_shell_command", args=cmd(c))) for c in commands]
    return [*calls, chunk(finish="stop")]


def stop_instead_of_tool_calls(commands: list[str]) -> list[Chunk]:
    """E1: the calls end with finish_reason stop (Ollama, Gemini)."""
    return sequential(commands, finish="stop")


def index_less(commands: list[str]) -> list[Chunk]:
    """B6: no index anywhere; ids tell calls apart, id-less fragments continue."""
    out = []
    for i, c in enumerate(commands):
        text_ = cmd(c)
        out.append(chunk(tc(id=f"call_{i}", name="execute_shell_command", args=text_[:6])))
        out.append(chunk(tc(args=text_[6:])))
    return [*out, chunk(finish="tool_calls")]


def repeated_names(commands: list[str]) -> list[Chunk]:
    """C1: id and name repeated on every fragment."""
    out = []
    for i, c in enumerate(commands):
        out += [chunk(tc(i, f"call_{i}", "execute_shell_command", p)) for p in pieces(cmd(c))]
    return [*out, chunk(finish="tool_calls")]


def text_between(commands: list[str]) -> list[Chunk]:
    """F4: text between tool-call chunks (Cloudflare)."""
    out = [chunk(content="Let me check.")]
    for i, c in enumerate(commands):
        out.append(chunk(tc(i, f"call_{i}", "execute_shell_command", cmd(c))))
        out.append(chunk(content="\n"))
    return [*out, chunk(finish="tool_calls")]


def shared_id(commands: list[str]) -> list[Chunk]:
    """G3: one id for distinct calls at different indices (DeepSeek, GLM, Kimi); the
    tool results answer by id, so each call gets its own (``id-N``)."""
    calls = [
        chunk(tc(i, "call_0", "execute_shell_command", cmd(c))) for i, c in enumerate(commands)
    ]
    return [*calls, chunk(finish="tool_calls")]


def placeholders(commands: list[str]) -> list[Chunk]:
    """G1: continuation fragments carry ``id: ""``, ``name: ""``, ``type: ""``."""
    out = []
    for i, c in enumerate(commands):
        out.append(chunk(tc(i, f"call_{i}", "execute_shell_command", "", type="function")))
        out += [chunk(tc(i, "", "", part, type="")) for part in pieces(cmd(c))]
    return [*out, chunk(finish="tool_calls")]


def double_encoded(commands: list[str]) -> list[Chunk]:
    """I1: each call's arguments are a JSON string holding the object (vLLM hermes)."""
    out = []
    for i, c in enumerate(commands):
        out.append(chunk(tc(i, f"call_{i}", "execute_shell_command", "")))
        out += [chunk(tc(i, args=part)) for part in pieces(json.dumps(cmd(c)))]
    return [*out, chunk(finish="tool_calls")]


def restarted(commands: list[str]) -> list[Chunk]:
    """I3: an unfinished prefix of each call's arguments, then the whole value again."""
    out = []
    for i, c in enumerate(commands):
        out.append(chunk(tc(i, f"call_{i}", "execute_shell_command", '{"shell_comm')))
        out += [chunk(tc(i, args=part)) for part in pieces(cmd(c))]
    return [*out, chunk(finish="tool_calls")]


# shape -> (builder, how stock shell_gpt fails on it, or None where stock copes)
SHAPES: dict[str, tuple[Any, Any]] = {
    "B1-interleaved": (interleaved, json.JSONDecodeError),
    "A1-one-chunk-with-finish": (one_chunk_with_finish, json.JSONDecodeError),
    "B3-ollama-same-index": (ollama_same_index, "never-runs"),
    "E1-finish-stop": (stop_instead_of_tool_calls, "never-runs"),
    "B6-index-less": (index_less, json.JSONDecodeError),
    "C1-repeated-names": (repeated_names, json.JSONDecodeError),
    "F4-text-between-calls": (text_between, json.JSONDecodeError),
    "G3-shared-id": (shared_id, json.JSONDecodeError),
    "G1-placeholders": (placeholders, json.JSONDecodeError),
    "I1-double-encoded": (double_encoded, json.JSONDecodeError),
    "I3-restarted": (restarted, json.JSONDecodeError),
}


@pytest.mark.stock_failure
@pytest.mark.parametrize("shape", list(SHAPES))
def test_stock_shell_gpt_fails(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    build, failure = SHAPES[shape]
    if failure == "never-runs":
        output, messages, _ = run([build(THREE), text()], "openai", monkeypatch)
        assert ran(messages) == [] and "@FunctionCall" not in output
    else:
        with pytest.raises(failure):
            run([build(THREE), text()], "openai", monkeypatch)


def legacy_call(command: str) -> list[Chunk]:
    """H1: the call in the legacy ``delta.function_call`` dialect."""
    head = {"name": "execute_shell_command", "arguments": ""}
    calls = [chunk(delta={"role": "assistant", "function_call": head})]
    calls += [chunk(delta={"function_call": {"arguments": p}}) for p in pieces(cmd(command))]
    return [*calls, chunk(finish="function_call")]


@pytest.mark.stock_failure
def test_h1_legacy_call_stock_never_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    output, messages, _ = run([legacy_call("ls"), text()], "openai", monkeypatch)
    assert ran(messages) == []
    assert "@FunctionCall" not in output


@pytest.mark.parametrize("kind", KINDS)
def test_h1_legacy_call_runs(kind: str, monkeypatch: pytest.MonkeyPatch, patched: None) -> None:
    output, messages, _ = run([legacy_call("ls"), text()], kind, monkeypatch)
    assert_all_ran(messages, ["ls"])
    assert output.endswith(ANSWER)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_patched_runs_every_call(
    shape: str, kind: str, monkeypatch: pytest.MonkeyPatch, patched: None
) -> None:
    if kind == "litellm" and shape == "B6-index-less":
        pytest.importorskip("litellm")  # litellm numbers index-less calls itself: still runs
    build, _ = SHAPES[shape]
    output, messages, _ = run([build(THREE), text()], kind, monkeypatch)
    assert_all_ran(messages, THREE)
    assert output.endswith(ANSWER)


def test_name_in_pieces(monkeypatch: pytest.MonkeyPatch, patched: None) -> None:
    """C2: the name streamed in pieces; stock keeps only the last piece."""
    stream = [
        chunk(tc(0, "call_0", "execute_shell", "")),
        chunk(tc(0, name="_command", args=cmd("uname"))),
        chunk(finish="tool_calls"),
    ]
    _, messages, _ = run([stream, text()], "openai", monkeypatch)
    assert_all_ran(messages, ["uname"])


@pytest.mark.stock_failure
def test_name_in_pieces_stock(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = [
        chunk(tc(0, "call_0", "execute_shell", "")),
        chunk(tc(0, name="_command", args=cmd("uname"))),
        chunk(finish="tool_calls"),
    ]
    with pytest.raises(ValueError) as raised:
        run([stream, text()], "openai", monkeypatch)
    report_stock_loss("sgpt name in pieces", str(raised.value), "Function _command not found")


# --- text only: output unchanged ---------------------------------------------------------


@pytest.mark.shim_only
@pytest.mark.parametrize("kind", KINDS)
def test_text_streams_as_before(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    stock, _, _ = run([text("Prague is the capital.")], kind, monkeypatch)
    import streamfix_sgpt

    streamfix_sgpt.install()
    try:
        patched_output, _, _ = run([text("Prague is the capital.")], kind, monkeypatch)
    finally:
        streamfix_sgpt.uninstall()
    assert patched_output == stock == "Prague is the capital."


# --- truncated, malformed, provider error --------------------------------------------------


def truncated(finish: str) -> list[Chunk]:
    body = cmd("ls -la")
    return [
        chunk(tc(0, "call_0", "execute_shell_command", body[:9])),
        chunk(tc(0, args=body[9:14]), finish=finish),
    ]


@pytest.mark.stock_failure
def test_truncated_stock_drops_the_call_silently(monkeypatch: pytest.MonkeyPatch) -> None:
    """finish_reason length: stock shell_gpt prints nothing at all."""
    output, messages, _ = run([truncated("length")], "openai", monkeypatch)
    assert output.strip() == "" and ran(messages) == []


@pytest.mark.stock_failure
def test_truncated_stock_raises_json_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream cut short but labelled tool_calls: stock hands the half to json.loads."""
    with pytest.raises(json.JSONDecodeError):
        run([truncated("tool_calls")], "openai", monkeypatch)


@pytest.mark.parametrize("finish", ["length", "tool_calls"])
@pytest.mark.parametrize("kind", KINDS)
def test_truncated_names_the_tool_and_goes_on(
    kind: str, finish: str, monkeypatch: pytest.MonkeyPatch, patched: None
) -> None:
    output, messages, fake = run([truncated(finish)], kind, monkeypatch)
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert "execute_shell_command" in lines[0]
    assert "truncated" in lines[0] and "incomplete" in lines[0]
    assert ran(messages) == [] and len(fake.requests) == 1


def test_malformed_arguments_name_the_tool(monkeypatch: pytest.MonkeyPatch, patched: None) -> None:
    stream = [chunk(tc(0, "call_0", "execute_shell_command", '{"shell_command": ls}'))]
    output, messages, _ = run([stream, text()], "openai", monkeypatch)
    assert "execute_shell_command" in output and "malformed" in output
    assert ran(messages) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_call_that_never_gets_a_name_says_so(
    kind: str, monkeypatch: pytest.MonkeyPatch, patched: None
) -> None:
    """E9: an id and whole arguments, never a name. Its arguments are fine: the line
    says the call has no name, naming it by its id."""
    stream = [chunk(tc(0, "call_x", args=cmd("ls"))), chunk(finish="tool_calls")]
    output, messages, fake = run([stream], kind, monkeypatch)
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines == ["> @FunctionCall `unnamed tool` not run: tool call 'call_x' never got a name."]
    assert ran(messages) == [] and len(fake.requests) == 1


def provider_error() -> list[Chunk]:
    failing = chunk(content="")
    failing["error"] = {"message": "upstream model overloaded (OpenRouter)", "code": 502}
    failing["choices"][0]["finish_reason"] = "error"
    return [chunk(content="Checking"), failing]


def test_provider_error_gives_the_providers_words(
    monkeypatch: pytest.MonkeyPatch, patched: None
) -> None:
    with pytest.raises(click.ClickException, match="upstream model overloaded"):
        run([provider_error()], "openai", monkeypatch)


# --- install / uninstall ------------------------------------------------------------------


@pytest.mark.shim_only
def test_install_is_idempotent_and_uninstall_restores() -> None:
    from sgpt.handlers.handler import Handler

    import streamfix_sgpt

    original = Handler.__dict__["get_completion"]
    streamfix_sgpt.install()
    streamfix_sgpt.install()
    patched_fn = Handler.__dict__["get_completion"]
    assert patched_fn is not original
    streamfix_sgpt.uninstall()
    streamfix_sgpt.uninstall()
    assert Handler.__dict__["get_completion"] is original


@pytest.mark.shim_only
def test_install_through_the_registry() -> None:
    import streamfix

    try:
        assert "sgpt" in streamfix.install("sgpt")
        from sgpt.handlers.handler import Handler

        assert getattr(Handler.get_completion, "__streamfix__", False)
    finally:
        streamfix.uninstall("sgpt")


@pytest.mark.shim_only
def test_plain_function_without_patching(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixed body used by a handler class of one's own; nothing patched."""
    from sgpt.handlers import default_handler
    from sgpt.handlers.handler import Handler

    import streamfix_sgpt

    class FixedHandler(default_handler.DefaultHandler):
        get_completion = Handler.cache(streamfix_sgpt.get_completion)

    monkeypatch.setattr(default_handler, "DefaultHandler", FixedHandler)
    _, messages, _ = run([sequential(THREE), text()], "openai", monkeypatch)
    assert_all_ran(messages, THREE)
    assert "sgpt" not in __import__("streamfix").installed()


def test_command_line_runs_three_commands(monkeypatch: pytest.MonkeyPatch, patched: None) -> None:
    """The ``sgpt`` command itself (typer app, printer and all), three calls in one turn."""
    import typer
    from sgpt import main
    from sgpt.handlers import handler
    from typer.testing import CliRunner

    fake = FakeCompletion([sequential(THREE), text()], "openai")
    monkeypatch.setattr(handler, "completion", fake)
    monkeypatch.setattr(handler, "additional_kwargs", {})
    app = typer.Typer()
    app.command()(main)
    result = CliRunner().invoke(app, ["run three commands", "--no-cache", "--functions"])
    assert result.exit_code == 0, result.output
    for command in THREE:
        assert f"ran: {command}" in result.output
    assert ANSWER in result.output
    assert len(fake.requests) == 2


@pytest.mark.stock_failure
def test_command_line_stock_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import typer
    from sgpt import main
    from sgpt.handlers import handler
    from typer.testing import CliRunner

    monkeypatch.setattr(
        handler, "completion", FakeCompletion([sequential(THREE), text()], "openai")
    )
    monkeypatch.setattr(handler, "additional_kwargs", {})
    app = typer.Typer()
    app.command()(main)
    result = CliRunner().invoke(app, ["run three commands", "--no-cache", "--functions"])
    assert result.exit_code != 0
    assert isinstance(result.exception, json.JSONDecodeError)
