"""The doctor's OpenAI-compatible builder driver (``_doctor.OPENAI_DRIVER``): every
OpenAI-dialect corpus scenario through ``litellm.stream_chunk_builder``, judged as the
doctor judges, stock and patched."""

from __future__ import annotations

import pytest

import streamfix.testing
from streamfix.testing import judge

OPENAI = streamfix.testing.scenarios("openai")
#: what stock litellm 1.110's builder loses of the corpus
STOCK_LOSES = {
    "a1-signature",
    "b2-same-index",
    "b3-same-index",
    "b6-no-index",
    "e4-truncated",
    "e5-error",
    "f1-signature",
    "f2-late-signature",
    "h1-legacy-function-call",
    "i1-double-encoded",
    "i3-restarted",
}


@pytest.mark.parametrize("name", sorted(OPENAI))
def test_stock(name: str) -> None:
    from streamfix_litellm._doctor import OPENAI_DRIVER

    ok, why = judge(OPENAI[name], OPENAI_DRIVER.drive(OPENAI[name]))
    assert ok == (name not in STOCK_LOSES), why


@pytest.mark.parametrize("name", sorted(OPENAI))
def test_patched(patched: None, name: str) -> None:
    from streamfix_litellm._doctor import OPENAI_DRIVER

    ok, why = judge(OPENAI[name], OPENAI_DRIVER.drive(OPENAI[name]))
    assert ok, why
