"""The litellm shim itself, against litellm's own code, without HTTP: the fixed parser of
Ollama's ``/api/chat`` lines (call indices, error lines) next to the stock one,
``install()`` / ``uninstall()`` at both binding sites, the version refusal, and the fixed
parser used as a plain class attribute without patching.

The same fixes through litellm's own clients over real HTTP (the replay server), and the
OpenAI-compatible ``chunk_creator`` fix, are tested in ``tests/e2e/test_litellm.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support import direct, report_stock_loss

import streamfix
import streamfix.testing

OLLAMA = streamfix.testing.scenarios("ollama")
OOM = OLLAMA["ollama-oom-error"].error
assert OOM is not None


def _parse(name: str, iterator: Any = None) -> list[Any]:
    """The scenario's NDJSON lines through ``OllamaChatCompletionResponseIterator`` as
    litellm has it now (stock, or patched), or through ``iterator``: the chunks its
    parser makes."""
    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator

    kind = iterator or OllamaChatCompletionResponseIterator
    parser = kind(streaming_response=iter(()), sync_stream=True)
    return [parser.chunk_parser(json.loads(json.dumps(line))) for line in OLLAMA[name].chunks]


def _fixed_iterator() -> Any:
    """The iterator as a patched parser numbers calls: litellm's own in direct mode
    (patched upstream), else one given the fixed parser with nothing installed (installed,
    the parser leaves the numbering to the repaired stream)."""
    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator

    import streamfix_litellm

    if direct():
        return OllamaChatCompletionResponseIterator

    class Fixed(OllamaChatCompletionResponseIterator):
        chunk_parser = streamfix_litellm.chunk_parser

    return Fixed


def _indices(chunks: list[Any]) -> list[int | None]:
    return [c.index for k in chunks for c in k.choices[0].delta.tool_calls or []]


@pytest.mark.stock_failure
def test_stock_parser_gives_each_line_s_call_index_0() -> None:
    """One call per NDJSON line: stock litellm numbers each line's calls from 0 again."""
    assert _indices(_parse("ollama-call-per-line")) == [0, 0]


@pytest.mark.parametrize("name", ["ollama-call-per-line", "ollama-calls-one-message"])
def test_patched_parser_gives_each_call_its_index(name: str) -> None:
    chunks = _parse(name, _fixed_iterator())
    assert _indices(chunks) == [0, 1]
    assert [c.function.name for k in chunks for c in k.choices[0].delta.tool_calls or []] == [
        "get_weather",
        "get_time",
    ]


@pytest.mark.shim_only
def test_installed_parser_leaves_the_numbering_to_the_repaired_stream(patched: None) -> None:
    """Installed, the repaired stream decides every call once (its repairer): the parser
    numbers nothing and runs no assembler (the consumer gets 0, 1: tests/e2e,
    tests/litellm_wire)."""
    assert _indices(_parse("ollama-call-per-line")) == [0, 0]


@pytest.mark.stock_failure
def test_stock_parser_fails_on_an_error_line_with_a_keyerror() -> None:
    from litellm.llms.ollama.common_utils import OllamaError

    with pytest.raises(OllamaError) as raised:
        _parse("ollama-oom-error")
    report_stock_loss("litellm ollama-oom-error parser", str(raised.value), "KeyError: 'message'")


@pytest.mark.shim_only
def test_patched_parser_raises_ollamas_error_as_a_5xx(patched: None) -> None:
    import litellm

    with pytest.raises(litellm.InternalServerError) as caught:
        _parse("ollama-oom-error")
    assert OOM in str(caught.value)
    assert "KeyError" not in str(caught.value)


@pytest.mark.shim_only
def test_text_is_parsed_as_stock_parses_it() -> None:
    stock = [k.choices[0].delta.content for k in _parse("ollama-text")]
    import streamfix_litellm

    streamfix_litellm.install()
    patched = [k.choices[0].delta.content for k in _parse("ollama-text")]
    assert patched == stock
    assert "".join(c or "" for c in stock) == "Hello from streamfix."


@pytest.mark.shim_only
def test_install_uninstall_restore_exactly() -> None:
    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator

    import streamfix_litellm

    stock = OllamaChatCompletionResponseIterator.__dict__["chunk_parser"]
    assert streamfix.install("litellm") == ["litellm"]
    streamfix_litellm.install()  # idempotent
    assert OllamaChatCompletionResponseIterator.chunk_parser is streamfix_litellm.chunk_parser
    assert streamfix.uninstall("litellm") == ["litellm"]
    streamfix_litellm.uninstall()  # idempotent
    assert OllamaChatCompletionResponseIterator.__dict__["chunk_parser"] is stock


@pytest.mark.shim_only
@pytest.mark.parametrize("method", ["chunk_creator", "_map_stream_exception"])
def test_install_uninstall_restore_the_stream_wrapper_exactly(method: str) -> None:
    from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper

    import streamfix_litellm

    stock = CustomStreamWrapper.__dict__.get(method)  # _map_stream_exception: not in 1.80
    streamfix_litellm.install()
    assert CustomStreamWrapper.__dict__.get(method) is not stock or stock is None
    streamfix_litellm.uninstall()
    assert CustomStreamWrapper.__dict__.get(method) is stock


@pytest.mark.shim_only
def test_unsupported_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator

    import streamfix_litellm
    from streamfix_litellm import _patch

    stock = OllamaChatCompletionResponseIterator.__dict__["chunk_parser"]
    monkeypatch.setattr(_patch.SHIM, "version", lambda: "1.79.3")
    with pytest.raises(RuntimeError, match=r"litellm 1\.79\.3 is not supported"):
        streamfix_litellm.install()
    assert OllamaChatCompletionResponseIterator.__dict__["chunk_parser"] is stock


@pytest.mark.shim_only
def test_fixed_parser_usable_without_patching() -> None:
    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator

    import streamfix_litellm

    class Fixed(OllamaChatCompletionResponseIterator):
        chunk_parser = streamfix_litellm.chunk_parser

    lines = streamfix.testing.scenarios("ollama")["ollama-call-per-line"].chunks
    parser = Fixed(streaming_response=iter(()), sync_stream=True)
    chunks = [parser.chunk_parser(json.loads(json.dumps(line))) for line in lines]
    assert [c.index for k in chunks for c in k.choices[0].delta.tool_calls or []] == [0, 1]
