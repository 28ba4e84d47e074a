"""install / uninstall / installed: the SDK's class replaced where it is bound, and put
back by identity; the stream classes build the fixed state while installed."""

from __future__ import annotations

import pytest

import streamfix
import streamfix_openai

pytestmark = [pytest.mark.openai, pytest.mark.shim_only]


def test_install_replaces_the_state_everywhere_and_uninstall_restores_it() -> None:
    import openai.lib.streaming.chat as public
    from openai.lib.streaming.chat import _completions

    stock = _completions.ChatCompletionStreamState
    assert not streamfix_openai.installed()
    streamfix_openai.install()
    streamfix_openai.install()  # idempotent
    try:
        assert streamfix_openai.installed()
        fixed = streamfix_openai.StreamFixChatCompletionStreamState
        assert _completions.ChatCompletionStreamState is fixed
        # openai.lib.streaming.chat exports the class only in later releases
        assert getattr(public, "ChatCompletionStreamState", fixed) is fixed
        assert issubclass(fixed, stock)
    finally:
        streamfix_openai.uninstall()
    assert _completions.ChatCompletionStreamState is stock
    assert getattr(public, "ChatCompletionStreamState", stock) is stock
    assert not streamfix_openai.installed()


def test_the_registry_knows_the_patch() -> None:
    assert "openai" in streamfix.install("openai")
    try:
        assert streamfix_openai.installed()
    finally:
        streamfix.uninstall("openai")
    assert not streamfix_openai.installed()


def test_stream_classes_build_the_fixed_state(patched: None) -> None:
    from openai.lib.streaming.chat import ChatCompletionStream

    class Raw:
        response = None

        def __iter__(self):  # type: ignore[no-untyped-def]
            return iter(())

    stream = ChatCompletionStream(raw_stream=Raw(), response_format=None, input_tools=[])  # type: ignore[arg-type]
    assert isinstance(stream._state, streamfix_openai.StreamFixChatCompletionStreamState)


def test_unsupported_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamfix._shimkit import UnsupportedVersionError

    monkeypatch.setattr(streamfix_openai.SHIM, "version", lambda: "1.39.0")
    with pytest.raises(UnsupportedVersionError):
        streamfix_openai.install()
    assert not streamfix_openai.installed()
