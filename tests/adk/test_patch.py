"""install() / uninstall(): every LiteLlm streams through the fix, including classes
imported and instances created before install; uninstall restores ADK's own method."""

from __future__ import annotations

import pytest
from adk_fakes import finals, run, summary
from google.adk.models import lite_llm
from google.adk.models.lite_llm import LiteLlm
from shapes import SHAPES

import streamfix
import streamfix_adk
from streamfix_adk import _patch

#: The shim's install/uninstall API: not run in direct mode.
pytestmark = pytest.mark.shim_only

A1 = next(s for s in SHAPES if s.id == "A1")
C1 = next(s for s in SHAPES if s.id == "C1-repeated-name")
STOCK = LiteLlm.__dict__["generate_content_async"]


class EarlySubclass(LiteLlm):
    """A user's subclass, defined before install."""


def _names(cls: type[LiteLlm]) -> list[str]:
    return [p["call"][1] for r in finals(run(cls, C1.chunks)) for p in summary(r)["parts"]]


def test_install_fixes_existing_classes_and_uninstall_restores() -> None:
    assert _names(LiteLlm) == ["ff"]  # stock: the repeated name doubled (C1)
    streamfix_adk.install()
    streamfix_adk.install()  # idempotent
    assert _names(LiteLlm) == ["f"]
    assert _names(lite_llm.LiteLlm) == ["f"]
    assert _names(EarlySubclass) == ["f"]
    streamfix_adk.uninstall()
    streamfix_adk.uninstall()  # idempotent
    assert LiteLlm.__dict__["generate_content_async"] is STOCK
    assert _names(LiteLlm) == ["ff"]


def test_instance_created_before_install() -> None:
    import asyncio

    from adk_fakes import MODEL, FakeClient, request

    llm = LiteLlm(model=MODEL, llm_client=FakeClient(list(C1.chunks), list(C1.chunks)))

    async def names() -> list[str]:
        out = [r async for r in llm.generate_content_async(request(), stream=True)]
        return [p["call"][1] for r in finals(out) for p in summary(r)["parts"]]

    assert asyncio.run(names()) == ["ff"]
    streamfix_adk.install()
    assert asyncio.run(names()) == ["f"]


def test_registry_entry_point() -> None:
    assert "adk" in streamfix.install("adk")
    try:
        assert "adk" in streamfix.installed()
        assert LiteLlm.__dict__["generate_content_async"] is not STOCK
    finally:
        assert streamfix.uninstall("adk") == ["adk"]
    assert LiteLlm.__dict__["generate_content_async"] is STOCK


def test_class_works_without_patching() -> None:
    assert LiteLlm.__dict__["generate_content_async"] is STOCK
    assert _names(streamfix_adk.StreamFixLiteLlm) == ["f"]


def test_fixed_class_is_unaffected_by_install() -> None:
    streamfix_adk.install()
    assert _names(streamfix_adk.StreamFixLiteLlm) == ["f"]


@pytest.mark.parametrize("found", ["1.38.0", "0.9.1", "3.0.0"])
def test_unsupported_version_refused(monkeypatch: pytest.MonkeyPatch, found: str) -> None:
    monkeypatch.setattr(_patch.SHIM, "version", lambda: found)
    with pytest.raises(RuntimeError, match="not supported"):
        streamfix_adk.install()
    assert LiteLlm.__dict__["generate_content_async"] is STOCK


def test_available() -> None:
    assert streamfix_adk.available()


def test_uninstall_puts_adks_tracker_back() -> None:
    """A fixed stream points ADK's partial-arguments tracker at a dispatcher on every
    version that streams partial calls (2.10+); uninstall puts ADK's class back (it did
    only from 2.13 before, so 2.10-2.12 kept the dispatcher after uninstall)."""
    from streamfix_adk import _versions

    streamfix_adk.install()
    assert _names(LiteLlm) == ["f"]
    if not _versions.live_calls():  # google-adk < 2.10: no partial-arguments tracker
        assert not hasattr(lite_llm, "_JsonPathTracker")
        return
    from google.adk.utils import streaming_utils

    from streamfix_adk import _tracker

    assert streaming_utils._JsonPathTracker is not _tracker.ADK_TRACKER  # the dispatcher
    streamfix_adk.uninstall()
    assert streaming_utils._JsonPathTracker is _tracker.ADK_TRACKER


@pytest.mark.parametrize(
    "imported",
    [["google.adk.models.lite_llm"], ["google.adk.models.google_llm"]],
)
def test_install_before_the_import_patches_both_paths(imported: list[str]) -> None:
    """``streamfix.install("adk")`` before ADK is imported waits for either of its two
    streaming modules: a program that imports only ``LiteLlm``'s module, or only
    ``Gemini``'s, gets both paths patched (a fresh interpreter each)."""
    import os
    import subprocess
    import sys

    program = "\n".join(
        [
            "import importlib, streamfix",
            "assert streamfix.install('adk') == ['adk']",
            *(f"importlib.import_module({name!r})" for name in imported),
            "from google.adk.models import google_llm, lite_llm",
            "print(lite_llm.LiteLlm.generate_content_async.__module__)",
            "print(google_llm.StreamingResponseAggregator.__module__)",
        ]
    )
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-c", program],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["streamfix_adk._model", "streamfix_adk._gemini"]
