"""The repaired stream on streams other projects recorded from real providers (issue 26,
4d): ``../shared/real-streams/`` beside the repository, read at run time (it is their
data: nothing of it is copied here).

- R1: OpenAI's, Azure's and llama.cpp's own recordings come out object for object, no
  chunk held (the tools declared, as the wires read them from the request).
- Every recording's repair is canonical and assembles as the original
  (``streamfix.testing.repair_check``).

Where the folder is absent (a clone without it) these tests skip, unless
``STREAMFIX_REQUIRE_REAL_STREAMS=1`` (nox sets it): then its absence fails them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import streamfix
from streamfix.testing import repair_check

pytestmark = pytest.mark.core

ROOT = Path(
    os.environ.get(
        "STREAMFIX_REAL_STREAMS",
        Path(__file__).resolve().parents[3] / "shared" / "real-streams",
    )
)
OWN_FORM = ("OpenAI", "Azure", "api.openai.com")  # providers whose form is OpenAI's own


def _index() -> list[dict[str, Any]]:
    path = ROOT / "index.json"
    if not path.exists():
        if os.environ.get("STREAMFIX_REQUIRE_REAL_STREAMS") == "1":
            raise FileNotFoundError(f"{path} (STREAMFIX_REQUIRE_REAL_STREAMS=1)")
        return []
    entries: list[dict[str, Any]] = json.loads(path.read_text())
    return entries


INDEX = _index()


def _chunks(entry: dict[str, Any]) -> list[Any]:
    chunks = []
    for line in (ROOT / entry["file"]).read_text().splitlines():
        try:
            chunks.append(json.loads(line))
        except ValueError:
            continue
    return chunks


def _tools(entry: dict[str, Any]) -> list[str]:
    return [call["name"] for call in (entry.get("expected") or {}).get("calls") or []]


def _own_form(entry: dict[str, Any]) -> bool:
    return entry["provider"].split()[0] in OWN_FORM or "llama-cpp" in entry["file"]


@pytest.fixture(autouse=True)
def _present() -> None:
    if not INDEX:
        pytest.skip(f"{ROOT} is not present (set STREAMFIX_REAL_STREAMS)")


def test_the_collection_is_read() -> None:
    assert len(INDEX) >= 90
    assert sum(_own_form(entry) for entry in INDEX) >= 20


@pytest.mark.parametrize("at", range(len(INDEX)), ids=[e["file"][:60] for e in INDEX])
def test_every_recording_repairs(at: int) -> None:
    entry = INDEX[at]
    assert repair_check(_chunks(entry), _tools(entry)) is None


@pytest.mark.parametrize(
    "at",
    [n for n, e in enumerate(INDEX) if _own_form(e)],
    ids=[e["file"][:60] for e in INDEX if _own_form(e)],
)
def test_r1_openai_azure_and_llama_cpp_come_out_object_for_object(at: int) -> None:
    entry = INDEX[at]
    chunks = _chunks(entry)
    repairer = streamfix.StreamRepairer(_tools(entry))
    out: list[Any] = []
    for body in chunks:
        out.extend(repairer.feed(body))
    out.extend(repairer.finish())
    assert repairer.error is None
    assert len(out) == len(chunks)
    assert all(a is b for a, b in zip(out, chunks, strict=True))
    assert repairer.held == 0
