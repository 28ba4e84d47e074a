"""The manual end-to-end check of the ``docs/upstream/openai-python-*.patch`` series: the
openai SDK as installed (stock, or patched), ``client.chat.completions.stream(...)`` over real HTTP
against this project's replay server, no shim installed.

    python tests/upstream_patch/e2e_check_openai.py

For each scenario prints what the streamed helper's final completion carries (or the error
it raised) and what the non-streamed response (``client.chat.completions.create``) carries.
Run it in the ``upstream_patch(openai)`` session's venv (patched) and in a stock venv, and
compare. A separate script from ``e2e_check.py`` (the other frameworks' checks) so that the
openai check needs no other framework installed.
"""

from __future__ import annotations

import importlib.metadata
import sys
from typing import Any

from streamfix.testing import ReplayServer

__all__ = ["SCENARIOS", "main"]

#: The replay server's scenarios this check streams: b2 (the series' second patch) and f2
#: (its first), the shapes the series leaves out (docs/upstream/openai-python.md, "Left
#: out"), then one OpenAI's own servers send.
SCENARIOS = [
    "b2-same-index",
    "b3-same-index",
    "b6-no-index",
    "c1-repeated-names",
    "g1-placeholders",
    "i1-double-encoded",
    "i3-restarted",
    "f2-late-signature",
    "f6-thinking-blocks",
    "b1-interleaved",
]
QUESTION = [{"role": "user", "content": "What is the weather in Paris, and the time there?"}]


def _calls(message: Any) -> list[tuple[str, str]]:
    return [(c.function.name, c.function.arguments) for c in message.tool_calls or []]


def main() -> int:
    import openai

    import streamfix

    assert not streamfix.installed(), "the check runs the SDK as installed, no shim"
    print(f"openai {importlib.metadata.version('openai')} from {openai.__file__}")
    with ReplayServer() as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key="sk-x")
        for model in SCENARIOS:
            try:
                with client.chat.completions.stream(model=model, messages=QUESTION) as stream:
                    streamed: Any = _calls(stream.get_final_completion().choices[0].message)
            except Exception as error:  # what the helper raises, printed as the user sees it
                streamed = f"{type(error).__name__}: {str(error)[:100]}"
            created = client.chat.completions.create(model=model, messages=QUESTION)
            plain = _calls(created.choices[0].message)
            same = "same" if streamed == plain else "DIFFERENT"
            print(f"  {model}: streamed {streamed}")
            print(f"  {' ' * len(model)}  non-streamed {plain} ({same})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
