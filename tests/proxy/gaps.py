"""What real clients get wrong, pinned: straight against the replay server (stock, no
proxy), and through the proxy where the core's repaired stream still lacks something a
client needs (:data:`CORE_GAPS`: each pinned as a loss, so its test fails the day the
gap is fixed and the entry must go)."""

from __future__ import annotations

# Direct to the replay server: the scenarios each client gets wrong (calls glued, lost,
# cut or double-encoded, an error it does not see or a crash), as ``Outcome.right`` judges
# (a call cut off, E4, or restarted, I3, is right when the client refuses it: any error).
DIRECT_WRONG = {
    "python_openai": {
        "b2-same-index",
        "b3-same-index",
        "b6-no-index",
        "c1-repeated-names",
        "f2-late-signature",
        "f6-thinking-blocks",
        "g1-placeholders",
        "g3-shared-id",
        "h1-legacy-function-call",
        "i1-double-encoded",
        "i3-restarted",
    },
    "python_litellm": {
        "b2-same-index",
        "b3-same-index",
        "b6-no-index",
        "e4-truncated",
        "g3-shared-id",
        "h1-legacy-function-call",
        "i1-double-encoded",
        "i3-restarted",
        "ollama-call-per-line",
    },
    "curl": {
        "b2-same-index",
        "b3-same-index",
        "b6-no-index",
        "e4-truncated",
        "g3-shared-id",
        "h1-legacy-function-call",
        "i1-double-encoded",
        "i3-restarted",
    },
    "openai": {  # the node package's chat.completions.stream() helper
        "b2-same-index",
        "b3-same-index",
        "b6-no-index",
        "e4-truncated",
        "g3-shared-id",
        "h1-legacy-function-call",
        "i1-double-encoded",
        "i3-restarted",
    },
    "ai": {  # the vercel ai SDK, streamText through @ai-sdk/openai-compatible
        "b6-no-index",
        "f2-late-signature",
        "h1-legacy-function-call",
        "i1-double-encoded",
    },
}

#: (client, scenario): why the proxy's stream (the core's repaired stream) is not right for
#: that client, each pinned as a loss. None today: the Python SDK's stream helper, which
#: raised on litellm's ``thinking_blocks`` (f6), reads the repaired stream, whose pieces
#: carry their block's place as ``index``.
CORE_GAPS: dict[tuple[str, str], str] = {}
