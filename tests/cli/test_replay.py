"""``streamfix replay FILE``: JSONL, SSE text and Ollama NDJSON captures; bad files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.cli import cli

import streamfix
import streamfix.testing
from streamfix.cli import DRIVERS

OPENAI = streamfix.testing.scenarios("openai")
OLLAMA = streamfix.testing.scenarios("ollama")


def jsonl(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.jsonl"
    chunks = streamfix.testing.scenarios()[name].chunks
    path.write_text("".join(json.dumps(c) + "\n" for c in chunks))
    return path


def sse(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.sse"
    events = [f"data: {json.dumps(c)}\n\n" for c in OPENAI[name].chunks]
    path.write_text(": a comment\n" + "".join(events) + "data: [DONE]\n\n")
    return path


def calls_of(data: dict) -> list[tuple[str, dict]]:
    return [(c["name"], c["arguments"]) for c in data["calls"]]


def expected(name: str) -> list[tuple[str, dict]]:
    return [(c["name"], c["arguments"]) for c in streamfix.testing.scenarios()[name].calls]


@pytest.mark.parametrize("write", [jsonl, sse])
def test_openai_capture(write, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "b2-same-index")
    code, out, _ = cli(capsys, "replay", str(path), "--json")
    data = json.loads(out)
    assert code == 0
    assert data["dialect"] == "openai"
    assert data["format"] == ("sse" if write is sse else "jsonl")
    assert calls_of(data) == expected("b2-same-index")


def test_ollama_ndjson(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = jsonl(tmp_path, "ollama-call-per-line")
    code, out, _ = cli(capsys, "replay", str(path), "--json")
    data = json.loads(out)
    assert (code, data["dialect"], data["format"]) == (0, "ollama", "ndjson")
    assert calls_of(data) == expected("ollama-call-per-line")


def test_human_output_shows_calls_and_repairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "dup.jsonl"
    chunks = list(OPENAI["a1-one-chunk"].chunks)
    path.write_text("".join(json.dumps(c) + "\n" for c in [*chunks[:2], chunks[1]]))
    code, out, _ = cli(capsys, "replay", str(path))
    assert code == 0
    assert 'call 0: get_weather({"city": "Paris"})' in out
    assert "repaired:" in out  # the re-sent complete calls were recognised and dropped


def test_truncated_and_error_captures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "replay", str(jsonl(tmp_path, "e4-truncated")), "--json")
    data = json.loads(out)
    assert code == 0
    assert data["error"]["type"] == "TruncatedToolCallError"
    assert data["error"]["partial_arguments"] == {"1": '{"zone": "Eur'}
    code, out, _ = cli(capsys, "replay", str(jsonl(tmp_path, "ollama-oom-error")))
    assert code == 0
    assert "ProviderStreamError" in out and OLLAMA["ollama-oom-error"].error in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"[1, 2]\n", "must be a JSON object"),
        (b"hello world\n", "not JSON"),
        (b'{"name": "x", "version": 1}\n', "not a chat stream capture"),
        (b"data: {broken\n\n", "not JSON"),
        (b"data: [DONE]\n\n", "no chunks"),
    ],
)
def test_foreign_files_get_a_clear_error(
    content: bytes, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "foreign.txt"
    path.write_bytes(content)
    code, out, err = cli(capsys, "replay", str(path))
    assert code == 2
    assert message in err
    assert "Traceback" not in out + err


@pytest.mark.parametrize(
    ("lines", "why"),
    [
        ('{"usage": {"total_tokens": 3}}\n', "not a chunk: dict with keys ['usage']"),
        ('{"choices": "none"}\n{"choices": "none"}\n', "choices is str, not a list"),
        ('{"choices": []}\n{"choices": []}\n', "no choice in any line"),
    ],
)
def test_a_file_without_one_readable_chunk_is_not_a_capture(
    lines: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each line is JSON with a chunk's key, and the assembler reads nothing in any."""
    path = tmp_path / "nothing.jsonl"
    path.write_text(lines)
    code, out, err = cli(capsys, "replay", str(path))
    assert (code, out) == (2, "")
    assert f"{path}: no line is a readable chunk ({why})" in err


def test_text_is_printed_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Non-ASCII text is text in both outputs, not ``\\ud83d\\ude00``; a surrogate pair a
    stream split between two chunks is the one character it encodes."""

    def delta(**fields: object) -> str:
        return json.dumps({"choices": [{"index": 0, "delta": fields}]}) + "\n"

    call = {
        "index": 0,
        "id": "c1",
        "function": {"name": "note", "arguments": '{"t": "d\u00e9j\u00e0"}'},
    }
    path = tmp_path / "text.jsonl"
    path.write_text(
        delta(content="caf\u00e9 ")
        + delta(content="\ud83d")
        + delta(content="\ude00")
        + delta(tool_calls=[call])
    )
    code, out, _ = cli(capsys, "replay", str(path), "--json")
    data = json.loads(out)
    assert code == 0
    assert data["text"] == "caf\u00e9 \U0001f600"
    assert '"caf\u00e9 \U0001f600"' in out and '"d\u00e9j\u00e0"' in out
    assert "\\u" not in out
    code, out, _ = cli(capsys, "replay", str(path))
    assert code == 0
    assert "text: 'caf\u00e9 \U0001f600'" in out
    assert 'call 0: note({"t": "d\u00e9j\u00e0"})' in out


def test_help_names_every_framework(capsys: pytest.CaptureFixture[str]) -> None:
    """``--framework`` accepts every doctor column (``litellm-openai``,
    ``smolagents-litellm`` included), and the help lists each."""
    for command in ("replay", "doctor"):
        code, out, _ = cli(capsys, command, "--help")
        assert code == 0
        listed = re.sub(r"-\s+", "-", " ".join(out.split()))  # wrapped after a hyphen
        assert all(name in listed for name in DRIVERS), listed


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "replay", str(tmp_path / "nope.jsonl"))
    assert code == 2
    assert "cannot read it" in err


def test_read_capture_raises_a_streamfix_error(tmp_path: Path) -> None:
    from streamfix.testing import CaptureError, read_capture

    path = tmp_path / "x.json"
    path.write_text('{"a": 1}')
    with pytest.raises(CaptureError) as info:
        read_capture(path)
    assert isinstance(info.value, streamfix.StreamFixError)


FRAMEWORK_CASES = {
    "sgpt": "b2-same-index",
    "smolagents": "b2-same-index",
    "adk": "c1-repeated-names",
}


@pytest.mark.parametrize("framework", sorted(FRAMEWORK_CASES))
def test_framework_stock_and_patched(
    framework: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not DRIVERS[framework].available():  # the cli session installs all three
        pytest.fail(f"{framework} is not installed")
    name = FRAMEWORK_CASES[framework]
    path = jsonl(tmp_path, name)
    code, out, _ = cli(capsys, "replay", str(path), "--json", "--framework", framework)
    info = json.loads(out)["frameworks"][framework]
    assert code == 0
    patched = [(c["name"], c["arguments"]) for c in info["patched"]["calls"]]
    stock = [(c["name"], c["arguments"]) for c in info["stock"]["calls"]]
    assert patched == expected(name)
    assert stock != expected(name)  # broken stock on every version the session installs
    code, out, _ = cli(capsys, "replay", str(path), "--framework", framework)
    assert code == 0
    assert "stock:" in out and "patched:" in out


def test_framework_of_the_other_dialect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = jsonl(tmp_path, "ollama-call-per-line")
    code, out, _ = cli(capsys, "replay", str(path), "--json", "--framework", "smolagents")
    assert code == 0
    assert json.loads(out)["frameworks"]["smolagents"]["status"].startswith("not applicable")


# --- replay --repair: the repaired stream as JSONL (wire-shapes R) -------------------------


@pytest.mark.parametrize("name", ["b3-same-index", "c1-repeated-names", "h1-legacy-function-call"])
def test_repair_prints_the_repaired_stream(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    code, out, err = cli(capsys, "replay", str(jsonl(tmp_path, name)), "--repair")
    assert (code, err) == (0, "")
    chunks = [json.loads(line) for line in out.splitlines()]
    assert streamfix.testing.is_canonical(chunks)
    message = streamfix.assemble(chunks)
    assert [(c.name, c.parsed) for c in message.tool_calls] == expected(name)


def test_repair_of_sse_text_and_ollama_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = cli(capsys, "replay", str(sse(tmp_path, "b6-no-index")), "--repair")
    assert code == 0
    assert streamfix.testing.is_canonical(json.loads(line) for line in out.splitlines())
    code, out, _ = cli(capsys, "replay", str(jsonl(tmp_path, "ollama-call-per-line")), "--repair")
    chunks = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert len(streamfix.assemble(chunks).tool_calls) == len(expected("ollama-call-per-line"))


def test_repair_of_a_stream_ending_in_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = cli(capsys, "replay", str(jsonl(tmp_path, "e4-truncated")), "--repair")
    assert code == 1
    assert err.startswith("streamfix replay: the stream ends in TruncatedToolCallError")
    complete = [c["name"] for c in OPENAI["e4-truncated"].calls]
    headers = [
        e["function"]["name"]
        for line in out.splitlines()
        for ch in json.loads(line)["choices"]
        for e in ch["delta"].get("tool_calls") or ()
        if "id" in e
    ]
    assert headers[: len(complete)] == complete


def test_repair_prints_non_ascii_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "text.jsonl"
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    lines = [
        {**body, "choices": [{"index": 0, "delta": {"content": "café \ud83d"}}]},
        {
            **body,
            "choices": [{"index": 0, "delta": {"content": "\ude00"}, "finish_reason": "stop"}],
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, _ = cli(capsys, "replay", str(path), "--repair")
    assert code == 0
    assert "café" in out
    assert "\\u" not in out
