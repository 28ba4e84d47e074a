"""A tiny llama-architecture GGUF that makes llama-server emit real tool calls.

No downloaded weights: the file is written here with the ``gguf`` and ``numpy`` packages,
from seeded random weights (2 layers, hidden size 64, 4 heads) with a little structure
written on top, so that greedy decoding (temperature 0) under llama-server's tool-call
grammar gives the answers the tests need:

- the vocabulary is SentencePiece-style: control tokens, byte fallbacks ``<0x00>`` ..
  ``<0xFF>``, one token per printable ASCII character (``▁`` for the space), and the
  user-defined tokens ``<tool_call>``, ``</tool_call>``, ``<tools>``, ``"Paris"`` and
  ``"UTC"`` (the two argument values, quotes included: a string value opens and closes
  in one token, so no string is ever filled with other tokens until ``max_tokens``);
- the chat template (``tokenizer.chat_template``) is Hermes-style: the tools' JSON inside
  ``<tools>`` in the system message, every call as ``<tool_call>\\n{"name": ..., "arguments":
  ...}\\n</tool_call>``; llama-server (``--jinja``) derives its grammar and its parser from it;
- one hidden dimension is held constant (the *bias channel*, :data:`CONST`): through the
  output weights it gives every token a fixed bias (:data:`BIASES`: byte fallbacks,
  control tokens, white space and ``<tool_call>`` disfavoured);
- the embedding of the current token carries a feature per token that has a preferred
  successor (a bigram table, :data:`BIGRAMS`): a line break opens ``<tool_call>`` (when
  tools are given), ``:`` is followed by ``"Paris"``, ``}`` by ``,`` (another call, where
  the grammar allows it) or ``</tool_call>``, ``</tool_call>`` by the end; plain text is
  ``OK.`` and the end;
- three heads of the first layer look for one marker token each anywhere in the context
  (a query from the bias channel, a key only on the marker, in the slowest-rotating RoPE
  pair, so the score does not depend on the distance) and write a flag dimension
  (:data:`FLAGS`, :data:`FLAG_BIASES`): tools given (``<tools>``: ``<tool_call>`` wins),
  a first call written (``"Paris"``: the next is ``get_time`` with ``"UTC"``), the second
  call written (``"UTC"``: the call tags close).

So: with tools, the answer opens ``<tool_call>`` (the grammar then holds the structure) and
calls ``get_weather`` with ``{"city": "Paris"}``; where the grammar allows more calls
(``parallel_tool_calls``: several calls inside one pair of tags, comma-separated), a
second follows, ``get_time`` with ``{"zone": "UTC"}``, then the end; a small
``max_tokens`` cuts a call off; without tools the answer is ``OK.``. Temperature 0: greedy.

Run as a script to write the file: ``python tests/llama/tiny_model.py OUT.gguf``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import gguf
import numpy as np

SEED = 1234
N_EMBD = 64
N_HEAD = 4
HEAD_DIM = N_EMBD // N_HEAD
N_FF = 128
N_LAYER = 2
N_CTX = 4096
NOISE = 0.02  # the standard deviation of the random weights

CONST = 63  # the bias channel
CONST_VALUE = 16.0
MARKER_VALUE = 8.0
#: flag name -> (marker token, its dimension in the embedding, the flag's dimension); one
#: head of the first layer each.
FLAGS = {
    "tools": ("<tools>", 62, 61),  # tools were given
    "both": ("both", 60, 59),  # the user asked for both (calls)
    "called": ('"Paris"', 58, 57),  # the first call's argument was written
    "second": ('"UTC"', 56, 55),  # the second call's argument was written
}
FLAG_VALUE = 2.0
ATTENTION_SCORE = 30.0  # a marker's attention score, against 0 for every other position
FEATURES = 55  # dimensions 0 .. FEATURES - 1 carry the bigram features

CONTROL = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"]
#: User-defined tokens: the call tags, the tools tag, the word ``both``, and the JSON
#: strings of a call (keys, names, the two argument values), each one token with its
#: quotes: a string opens and closes in one token (no string is ever filled with other
#: tokens until ``max_tokens``), a whole call is 16 tokens, and the flags can tell a
#: written argument from the same word in the prompt.
USER_DEFINED = [
    "<tool_call>",
    "</tool_call>",
    "<tools>",
    "both",
    '"name"',
    '"arguments"',
    '"get_weather"',
    '"get_time"',
    '"city"',
    '"zone"',
    '"Paris"',
    '"UTC"',
]
EOG = "<|im_end|>"
NEWLINE = "<0x0A>"
SPACE = "\u2581"

#: Every token's fixed bias, through the bias channel (tokens not named: 0; byte
#: fallbacks and control tokens -10).
BIASES: dict[str, float] = {
    '"': 2.0,
    "}": 2.0,
    SPACE: -8.0,
    "<tool_call>": -12.0,
}
#: (current token, next token, strength): the preferred successors.
BIGRAMS: list[tuple[str, str, float]] = [
    (NEWLINE, "O", 8.0),  # plain text: "OK." and the end
    ("O", "K", 12.0),
    ("K", ".", 12.0),
    (".", EOG, 12.0),
    (NEWLINE, "<tool_call>", 10.0),  # with tools (the tools flag too) a call opens ...
    ("<tool_call>", NEWLINE, 20.0),  # ... as the template writes it: "<tool_call>\n"
    (":", '"get_weather"', 5.0),  # get_weather first ...
    (":", '"get_time"', 3.0),
    (":", '"Paris"', 12.0),  # ... with "Paris" (where the grammar takes a string value)
    (":", '"UTC"', 4.0),
    ("}", "</tool_call>", 6.0),  # the end of the call ...
    ("}", ",", 4.0),  # ... or another in the same tags, where the grammar allows it
    (",", "{", 8.0),
    ("</tool_call>", EOG, 10.0),
]
#: (flag, next token, strength): what a flag adds.
FLAG_BIASES: list[tuple[str, str, float]] = [
    ("tools", "<tool_call>", 14.0),
    ("both", ",", 6.0),  # asked for both: a second call follows the first ...
    ("called", '"get_time"', 6.0),  # ... get_time ...
    ("called", '"UTC"', 12.0),  # ... with "UTC" ...
    ("second", "</tool_call>", 20.0),  # ... and it is the last
]

CHAT_TEMPLATE = """\
{%- if tools %}
{{- '<|im_start|>system\\n' }}
{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}
{{- 'You may call functions. Their signatures are in <tools></tools>:\\n<tools>' }}
{%- for tool in tools %}{{- '\\n' }}{{- tool | tojson }}{%- endfor %}
{{- '\\n</tools>\\nReturn each call as a JSON object with its name and arguments,\\n' }}
{{- 'between the call tags.<|im_end|>\\n' }}
{%- elif messages[0].role == 'system' %}
{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}
{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
{%- elif message.role == 'assistant' %}
{{- '<|im_start|>assistant' }}
{%- if message.content %}{{- '\\n' + message.content }}{%- endif %}
{%- for tool_call in message.tool_calls or [] %}
{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '\\n<tool_call>\\n{"name": "' + tool_call.name + '", "arguments": ' }}
{%- if tool_call.arguments is string %}{{- tool_call.arguments }}
{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}
{{- '}\\n</tool_call>' }}
{%- endfor %}
{{- '<|im_end|>\\n' }}
{%- elif message.role == 'tool' %}
{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}
{{- '<|im_start|>user' }}
{%- endif %}
{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}
{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}{{- '<|im_end|>\\n' }}{%- endif %}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""


def vocabulary() -> tuple[list[str], list[int]]:
    """The tokens and their types (gguf.TokenType values)."""
    tokens = list(CONTROL)
    types = [gguf.TokenType.UNKNOWN] + [gguf.TokenType.CONTROL] * (len(CONTROL) - 1)
    tokens += [f"<0x{byte:02X}>" for byte in range(256)]
    types += [gguf.TokenType.BYTE] * 256
    printable = [SPACE if code == 0x20 else chr(code) for code in range(0x20, 0x7F)]
    tokens += printable
    types += [gguf.TokenType.NORMAL] * len(printable)
    tokens += USER_DEFINED
    types += [gguf.TokenType.USER_DEFINED] * len(USER_DEFINED)
    return tokens, [int(t) for t in types]


def _weights(tokens: list[str]) -> dict[str, Any]:
    """Every tensor, as numpy arrays (rows = outputs)."""
    rng = np.random.default_rng(SEED)
    ids = {token: i for i, token in enumerate(tokens)}
    vocab = len(tokens)

    def noise(*shape: int) -> Any:
        return (rng.standard_normal(shape) * NOISE).astype(np.float32)

    embed = noise(vocab, N_EMBD)
    embed[:, CONST] = CONST_VALUE
    for marker, marker_dim, _ in FLAGS.values():
        embed[:, marker_dim] = 0.0
        embed[ids[marker], marker_dim] = MARKER_VALUE
    for dim in range(FEATURES, N_EMBD):
        if dim != CONST and dim not in [m for _, m, _ in FLAGS.values()]:
            embed[:, dim] = 0.0
    # The normalised sizes the output weights are scaled by (RMS norm of the residual).
    rms = float(np.sqrt((CONST_VALUE**2 + 1.0) / N_EMBD))
    const_n, feature_n, flag_n = CONST_VALUE / rms, 1.0 / rms, FLAG_VALUE / rms

    output = noise(vocab, N_EMBD)
    output[:, CONST] = 0.0
    for token in tokens:
        if token.startswith("<0x") or token in CONTROL[:4]:
            output[ids[token], CONST] = -10.0 / const_n
    for token, bias in BIASES.items():
        output[ids[token], CONST] = bias / const_n
    features: dict[str, int] = {}
    for current, following, strength in BIGRAMS:
        if current not in features:
            features[current] = len(features)
            embed[:, features[current]] = 0.0
            embed[ids[current], features[current]] = 1.0
        output[ids[following], features[current]] += strength / feature_n
    assert len(features) <= FEATURES, features
    for flag, following, strength in FLAG_BIASES:
        output[ids[following], FLAGS[flag][2]] += strength / flag_n

    weights: dict[str, Any] = {
        "token_embd.weight": embed,
        "output_norm.weight": np.ones(N_EMBD, dtype=np.float32),
        "output.weight": output,
    }
    for layer in range(N_LAYER):
        block = {
            "attn_norm.weight": np.ones(N_EMBD, dtype=np.float32),
            "attn_q.weight": noise(N_EMBD, N_EMBD),
            "attn_k.weight": noise(N_EMBD, N_EMBD),
            "attn_v.weight": noise(N_EMBD, N_EMBD),
            "attn_output.weight": noise(N_EMBD, N_EMBD),
            "ffn_norm.weight": np.ones(N_EMBD, dtype=np.float32),
            "ffn_gate.weight": noise(N_FF, N_EMBD),
            "ffn_up.weight": noise(N_FF, N_EMBD),
            "ffn_down.weight": noise(N_EMBD, N_FF),
        }
        # Nothing but the flags writes the structured dimensions.
        block["attn_output.weight"][FEATURES:, :] = 0.0
        block["ffn_down.weight"][FEATURES:, :] = 0.0
        if layer == 0:
            _marker_heads(block, rms)
        weights.update({f"blk.{layer}.{name}": value for name, value in block.items()})
    return weights


def _marker_heads(block: dict[str, Any], rms: float) -> None:
    """Heads 0, 1, 2 of the first layer: each attends to its marker token wherever it is
    and writes its flag (0 when the marker is absent: every value is then 0)."""
    marker_rms = float((CONST_VALUE**2 + MARKER_VALUE**2) / N_EMBD) ** 0.5
    query_n, key_n = CONST_VALUE / rms, MARKER_VALUE / marker_rms
    scale = (ATTENTION_SCORE * HEAD_DIM**0.5 / (query_n * key_n)) ** 0.5
    for head, (_, marker_dim, flag_dim) in enumerate(FLAGS.values()):
        slow = head * HEAD_DIM + HEAD_DIM - 2  # the slowest RoPE pair of the head
        value = head * HEAD_DIM
        for name in ("attn_q.weight", "attn_k.weight"):
            block[name][head * HEAD_DIM : (head + 1) * HEAD_DIM, :] = 0.0
        block["attn_q.weight"][slow, CONST] = scale
        block["attn_k.weight"][slow, marker_dim] = scale
        block["attn_v.weight"][value, :] = 0.0
        block["attn_v.weight"][value, marker_dim] = 1.0
        block["attn_output.weight"][flag_dim, :] = 0.0
        block["attn_output.weight"][flag_dim, value] = FLAG_VALUE / key_n


def write_model(path: str | Path) -> Path:
    """Write the model to ``path``; the path."""
    path = Path(path)
    tokens, types = vocabulary()
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("streamfix-tiny-tools")
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(HEAD_DIM)
    writer.add_rope_freq_base(1e6)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * len(tokens))
    writer.add_token_types(types)
    writer.add_unk_token_id(tokens.index("<unk>"))
    writer.add_bos_token_id(tokens.index("<s>"))
    writer.add_eos_token_id(tokens.index(EOG))
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_add_space_prefix(False)
    writer.add_chat_template(CHAT_TEMPLATE)
    for name, value in _weights(tokens).items():
        writer.add_tensor(name, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


if __name__ == "__main__":
    print(write_model(sys.argv[1]))
