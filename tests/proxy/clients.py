"""The real clients the proxy's tests drive, each reduced to one :class:`Outcome` per
scenario: the calls (id, name, arguments as the client parsed them, or the text it got
when that is not JSON), the text, and the error text when the client raised or reported
one. ``python_openai``, ``python_litellm`` and ``curl`` run here; the node clients
(``openai``, the vercel ``ai`` SDK) run in one node process per client
(``node_clients.py``).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from typing import Any

from proxy_helpers import SCENARIOS, TOOLS, USER, Expected, expected, same_calls

from streamfix.testing import drain


@dataclass
class Outcome:
    calls: list[tuple[Any, str, Any]] = field(default_factory=list)
    text: str = ""
    error: str | None = None

    def right(self, name: str) -> bool:
        """Whether this is what the scenario must give (:func:`proxy_helpers.expected`)."""
        want: Expected = expected(SCENARIOS[name])
        if want.error is not None and SCENARIOS[name].error is None:
            return self.error is not None  # a call cut off or taken back: refused, any way
        if want.error is not None:
            return self.error is not None and want.error in self.error  # the provider's text
        return self.error is None and same_calls(self.calls, want) and self.text == want.text


def parsed(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def python_openai(base_url: str, name: str) -> Outcome:
    """The openai SDK's stream helper: ``chat.completions.stream()``, its final completion."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key="sk-streamfix-test", max_retries=0)
    try:
        with client.chat.completions.stream(model=name, messages=USER, tools=TOOLS) as stream:
            for _ in stream:
                pass
            message = stream.get_final_completion().choices[0].message
    except Exception as error:
        return Outcome(error=str(error))
    calls = [
        (c.id, c.function.name, parsed(c.function.arguments)) for c in message.tool_calls or []
    ]
    return Outcome(calls, message.content or "")


def python_litellm(base_url: str, name: str) -> Outcome:
    """``litellm.completion(stream=True)``, the chunks built with ``stream_chunk_builder``
    (``openai/`` against ``/v1``, ``ollama_chat/`` against the root)."""
    import litellm

    ollama = SCENARIOS[name].dialect == "ollama"
    model = f"ollama_chat/{name}" if ollama else f"openai/{name}"
    api_base = base_url.removesuffix("/v1") if ollama else base_url
    chunks, error = drain(
        lambda: litellm.completion(
            model=model,
            api_base=api_base,
            api_key="sk-streamfix-test",
            messages=USER,
            tools=TOOLS,
            stream=True,
        )
    )
    if error is not None:
        return Outcome(error=str(error))
    try:
        built: Any = litellm.stream_chunk_builder(chunks, messages=USER)
    except Exception as failed:
        return Outcome(error=str(failed))
    message = built.choices[0].message
    calls = [
        (c.id, c.function.name, parsed(c.function.arguments)) for c in message.tool_calls or []
    ]
    return Outcome(calls, message.content or "")


def curl(base_url: str, name: str) -> Outcome:
    """``curl -N``: the raw stream, read as a client without a library reads it (entries
    by ``index``, the name once, arguments appended; Ollama: one call an entry)."""
    ollama = SCENARIOS[name].dialect == "ollama"
    url = base_url.removesuffix("/v1") + ("/api/chat" if ollama else "/v1/chat/completions")
    body = json.dumps({"model": name, "messages": USER, "tools": TOOLS, "stream": True})
    done = subprocess.run(
        ["curl", "-sSN", "-X", "POST", url, "-H", "content-type: application/json", "-d", body],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return read_ollama(done.stdout) if ollama else read_sse(done.stdout)


def read_sse(text: str) -> Outcome:
    calls: dict[Any, list[Any]] = {}
    out = Outcome()
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(
            line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")
        )
        if not data or data == "[DONE]":
            continue
        chunk = json.loads(data)
        if chunk.get("error"):
            out.error = json.dumps(chunk["error"])
            break
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            out.text += delta.get("content") or ""
            for entry in delta.get("tool_calls") or []:
                call = calls.setdefault(entry.get("index"), [None, "", ""])
                call[0] = call[0] or entry.get("id")
                function = entry.get("function") or {}
                call[1] = call[1] or function.get("name") or ""
                call[2] += function.get("arguments") or ""
    out.calls = [(i, n, parsed(a)) for i, n, a in calls.values()]
    return out


def read_ollama(text: str) -> Outcome:
    out = Outcome()
    for line in text.splitlines():
        if not line.strip():
            continue
        chunk = json.loads(line)
        if "error" in chunk:
            out.error = str(chunk["error"])
            break
        message = chunk.get("message") or {}
        out.text += message.get("content") or ""
        for entry in message.get("tool_calls") or []:
            function = entry.get("function") or {}
            out.calls.append((entry.get("id"), function.get("name"), function.get("arguments")))
    if out.error is None:  # ids: Ollama may send none (same_calls wants one a call)
        out.calls = [(i or f"call_{n}", name, a) for n, (i, name, a) in enumerate(out.calls)]
    return out
