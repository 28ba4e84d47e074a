"""Shared hypothesis strategies: responses, the ways to cut them into streams, garbage.

The model: a :class:`Response` is what a non-streamed completion would carry (calls with
names, ids, argument objects and signatures; content; reasoning; finish reason; usage).
:func:`stream` serialises a response into OpenAI chunk dicts in one of the wire dialects
of ``docs/wire-shapes.md``, cutting every text where a :class:`Cuts` says. The invariant
under test is ``assemble(stream(R, dialect, cuts)) == R``.
"""

from __future__ import annotations

import itertools
import json
import os
import string
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# --------------------------------------------------------------------------- settings

# Profiles ("ci", "dev") are registered and loaded by tests/conftest.py; these tests pin
# their own example counts (>= 2,000 round-trip examples at scale 1), scaled by
# STREAMFIX_EXAMPLES_SCALE: nox's `tests` runs 0.3 on each of four Pythons (1.2 times the
# full count in all); 0.1 makes a quick local run.
_SCALE = float(os.environ.get("STREAMFIX_EXAMPLES_SCALE", "1"))


def examples(n: int, **kwargs: Any) -> settings:
    """Settings for a property test: ``n`` examples (scaled), no deadline."""
    return settings(
        max_examples=max(1, round(n * _SCALE)),
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
        **kwargs,
    )


# --------------------------------------------------------------------------- the model

DIALECTS = (
    "standard",
    "interleaved",
    "ollama_same_index",
    "index_less",
    "repeated_names",
    "one_chunk_with_finish",
    "legacy",  # H1: delta.function_call, one call
)

# Dialects whose entries carry an index on every fragment: where the second wave's
# identity variations (G1 placeholders, G3 shared ids, G5 types, G6 digit strings, I2
# null entries) apply.
INDEXED = ("standard", "interleaved", "one_chunk_with_finish")

NAME_POOL = (
    "read_file",
    "write_file",
    "get_weather",
    "search",
    "list_files",
    "run_shell_command",
    "edit_existing_file",
    "f",
    "read",  # a prefix of another name: C1 (repeat) vs C2 (pieces) must not confuse them
    "list",
)

_CHUNK_ID = "chatcmpl-streamfix"


@dataclass(frozen=True)
class Call:
    """One call of a response, and the exact argument text its stream carries."""

    id: str | None
    name: str
    args: dict[str, Any]
    text: str  # argument JSON text as sent ("" = zero-argument tool sending "", D2)
    signature: str | None = None
    args_absent: bool = False  # D2: the call never carries an "arguments" key
    encoded: bool = False  # I1: ``text`` is the JSON text of a string holding the object


@dataclass(frozen=True)
class Response:
    """What a non-streamed response would carry."""

    calls: tuple[Call, ...]
    content: str = ""
    reasoning: str = ""
    finish_reason: str = "tool_calls"
    usage: dict[str, int] | None = None
    #: F6: (text, signature) per Anthropic thinking block, streamed through litellm
    thinking: tuple[tuple[str, str], ...] = ()
    #: F5: text per OpenRouter reasoning-details entry (index = place in the tuple)
    details: tuple[str, ...] = ()

    @property
    def thinking_blocks(self) -> list[dict[str, Any]]:
        return [
            {"type": "thinking", "thinking": text, "signature": signature}
            for text, signature in self.thinking
        ]

    @property
    def reasoning_details(self) -> list[dict[str, Any]]:
        return [
            {"type": "reasoning.text", "text": text, "format": "unknown", "index": i}
            for i, text in enumerate(self.details)
        ]


@dataclass(frozen=True)
class Cuts:
    """Every choice of how a response is cut into chunks and fragments."""

    arg_cuts: tuple[tuple[int, ...], ...]  # per call: sorted cut positions in its text
    header_carries_text: tuple[bool, ...]  # per call: first piece rides on the header (D4)
    content_cuts: tuple[int, ...] = ()
    reasoning_cuts: tuple[int, ...] = ()
    content_slots: tuple[int, ...] = ()  # per content piece: tool entries sent before it
    merges: frozenset[int] = frozenset()  # item positions glued onto the previous chunk
    reasoning_key: str = "reasoning_content"
    explicit_nones: bool = False  # absent fields sent as explicit nulls (model_dump style)
    role_chunk: bool = False  # leading {"role": "assistant", "content": ""} chunk
    role_every: bool = False  # the role named on every delta (Kimi, GLM): never E10
    filter_chunk: bool = False  # Azure's leading prompt_filter_results chunk (E6)
    finish_on_last: bool = False  # finish_reason rides on the last content chunk
    round_robin: bool = False  # repeated_names: fragments of calls alternate
    # the second wave, in INDEXED dialects only
    placeholders: bool = False  # G1: continuations carry id "", name "", type ""
    type_form: str = "header"  # G5: "header", "absent", "empty" or "every" fragment
    digit_indices: bool = False  # G6: headers' index as a digit string
    null_entries: bool = False  # I2: an entry of nulls rides beside each header
    thinking_cuts: tuple[tuple[int, ...], ...] = ()  # F6: per block
    details_cuts: tuple[tuple[int, ...], ...] = ()  # F5: per entry


@dataclass(frozen=True)
class Streamed:
    """A response, its dialect, the cuts, and the resulting chunk dicts."""

    response: Response
    dialect: str
    cuts: Cuts
    chunks: list[dict[str, Any]]

    @property
    def raw_texts(self) -> list[str]:
        return [call.text for call in self.response.calls]


# --------------------------------------------------------------------------- serialising


def split_at(text: str, cuts: tuple[int, ...] | list[int]) -> list[str]:
    """``text`` cut at the given positions; never an empty piece; [] for ""."""
    points = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


def escape_cuts(text: str) -> list[int]:
    """Every position strictly inside a JSON escape (``\\n``, ``\\"``, ``\\ud83d``...)."""
    out: list[int] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            width = 6 if text[i + 1] == "u" else 2
            out.extend(range(i + 1, min(i + width, len(text))))
            i += width
        else:
            i += 1
    return out


def _signature_fields(call: Call) -> dict[str, Any]:
    if call.signature is None:
        return {}
    return {"extra_content": {"google": {"thought_signature": call.signature}}}


def _function(name: str | None, args: str | None, nones: bool) -> dict[str, Any]:
    fn: dict[str, Any] = {}
    if name is not None or nones:
        fn["name"] = name
    if args is not None or nones:
        fn["arguments"] = args
    return fn


def _entry(
    dialect: str,
    pos: int,
    call: Call,
    piece: str | None,
    header: bool,
    nones: bool,
    cuts: Cuts | None = None,
) -> dict[str, Any]:
    """One ``delta.tool_calls`` entry for ``call`` carrying ``piece`` of its arguments."""
    named = header or dialect == "repeated_names"
    wave = cuts if cuts is not None and dialect in INDEXED else Cuts((), ())
    entry: dict[str, Any] = {}
    if dialect == "ollama_same_index":
        entry["index"] = 0
    elif dialect != "index_less":
        entry["index"] = str(pos) if header and wave.digit_indices else pos
    elif nones:
        entry["index"] = None
    if named and call.id is not None:
        entry["id"] = call.id
    elif wave.placeholders:
        entry["id"] = ""
    elif nones:
        entry["id"] = None
    if wave.type_form == "empty" or (wave.placeholders and not named):
        entry["type"] = ""
    elif (named and wave.type_form != "absent") or wave.type_form == "every":
        entry["type"] = "function"
    elif nones:
        entry["type"] = None
    name = call.name if named else ("" if wave.placeholders else None)
    entry["function"] = _function(name, piece, nones)
    if header:
        entry.update(_signature_fields(call))
    return entry


def call_entries(dialect: str, pos: int, call: Call, cuts: Cuts) -> list[dict[str, Any]]:
    """The fragments of one call, header first."""
    nones = cuts.explicit_nones
    if call.args_absent:
        return [_entry(dialect, pos, call, None, True, nones, cuts)]
    pieces = split_at(call.text, cuts.arg_cuts[pos])
    if cuts.header_carries_text[pos] and pieces:
        head, rest = pieces[0], pieces[1:]
    else:
        head, rest = "", pieces
    entries = [_entry(dialect, pos, call, head, True, nones, cuts)]
    entries.extend(_entry(dialect, pos, call, p, False, nones, cuts) for p in rest)
    return entries


def _ordered_entries(response: Response, dialect: str, cuts: Cuts) -> list[dict[str, Any]]:
    per_call = [call_entries(dialect, i, c, cuts) for i, c in enumerate(response.calls)]
    if dialect == "interleaved" or (dialect == "repeated_names" and cuts.round_robin):
        out: list[dict[str, Any]] = []
        for rnd in range(max((len(e) for e in per_call), default=0)):
            out.extend(e[rnd] for e in per_call if rnd < len(e))
        return out
    return [entry for entries in per_call for entry in entries]


def _envelope(choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "id": _CHUNK_ID,
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": choices,
        **extra,
    }


def _choice(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "finish_reason": finish_reason}


def _items(response: Response, dialect: str, cuts: Cuts) -> list[tuple[str, Any]]:
    """The stream as a flat list of (kind, payload) before it is grouped into chunks."""
    items: list[tuple[str, Any]] = [
        (cuts.reasoning_key, p) for p in split_at(response.reasoning, cuts.reasoning_cuts)
    ]
    for (text, signature), block_cuts in zip(response.thinking, cuts.thinking_cuts, strict=True):
        items += [
            ("thinking_blocks", [{"type": "thinking", "thinking": p}])
            for p in split_at(text, block_cuts)
        ]
        items.append(("thinking_blocks", [{"type": "thinking", "signature": signature}]))
    for i, (text, entry_cuts) in enumerate(zip(response.details, cuts.details_cuts, strict=True)):
        for n, p in enumerate(split_at(text, entry_cuts)):
            piece = {"type": "reasoning.text", "text": p, "index": i}
            if n == 0:
                piece["format"] = "unknown"
            items.append(("reasoning_details", [piece]))
    content = split_at(response.content, cuts.content_cuts)
    # content keeps its order: piece k goes after the k-th smallest slot's tool entries
    slots = sorted(cuts.content_slots) + [0] * (len(content) - len(cuts.content_slots))
    slotted = list(zip(sorted(slots), range(len(content)), strict=True))
    entries = _ordered_entries(response, dialect, cuts)
    k = 0
    for n, entry in enumerate(entries):
        while k < len(slotted) and slotted[k][0] <= n:
            items.append(("content", content[slotted[k][1]]))
            k += 1
        items.append(("tool", entry))
    items.extend(("content", content[slotted[j][1]]) for j in range(k, len(slotted)))
    return items


def _group(items: list[tuple[str, Any]], cuts: Cuts) -> list[dict[str, Any]]:
    """Group items into deltas; a delta holds at most one text piece of each kind."""
    deltas: list[dict[str, Any]] = []
    for n, (kind, payload) in enumerate(items):
        current = deltas[-1] if deltas else None
        fits = current is not None and n in cuts.merges and kind not in current
        if not fits:
            current = {}
            deltas.append(current)
        assert current is not None
        if kind == "tool":
            current.setdefault("tool_calls", []).append(payload)
            if cuts.null_entries and payload["function"].get("name"):  # I2, beside headers
                nulls = {"index": 90 + n, "id": None, "type": None, "function": None}
                current["tool_calls"].append(nulls)
        else:
            current[kind] = payload
    if cuts.explicit_nones:
        for delta in deltas:
            delta.setdefault("content", None)
    return deltas


def _one_chunk_delta(response: Response, cuts: Cuts) -> dict[str, Any]:
    delta: dict[str, Any] = {"role": "assistant", "content": response.content or None}
    if response.reasoning:
        delta[cuts.reasoning_key] = response.reasoning
    delta["tool_calls"] = [
        _entry("standard", i, c, None if c.args_absent else c.text, True, cuts.explicit_nones)
        for i, c in enumerate(response.calls)
    ]
    if response.thinking:
        delta["thinking_blocks"] = response.thinking_blocks
    if response.details:
        delta["reasoning_details"] = response.reasoning_details
    return delta


def _legacy(response: Response, cuts: Cuts) -> list[dict[str, Any]]:
    """H1: the call as ``delta.function_call`` pieces; text and reasoning before it."""
    (call,) = response.calls
    deltas = [{"content": p} for p in split_at(response.content, cuts.content_cuts)]
    deltas += [{cuts.reasoning_key: p} for p in split_at(response.reasoning, cuts.reasoning_cuts)]
    pieces = [] if call.args_absent else split_at(call.text, cuts.arg_cuts[0])
    head: dict[str, Any] = {"name": call.name}
    if not call.args_absent:
        head["arguments"] = pieces.pop(0) if cuts.header_carries_text[0] and pieces else ""
    deltas.append({"role": "assistant", "function_call": head})
    deltas += [{"function_call": {"arguments": p}} for p in pieces]
    return deltas


def stream(response: Response, dialect: str, cuts: Cuts) -> list[dict[str, Any]]:
    """``response`` as OpenAI ``chat.completion.chunk`` dicts in ``dialect``, cut by ``cuts``."""
    chunks: list[dict[str, Any]] = []
    if cuts.filter_chunk:
        chunks.append(_envelope([], prompt_filter_results=[{"prompt_index": 0}]))
    if cuts.role_chunk:
        chunks.append(_envelope([_choice({"role": "assistant", "content": ""})]))
    if dialect == "one_chunk_with_finish":
        delta = _one_chunk_delta(response, cuts)
        chunks.append(_envelope([_choice(delta, response.finish_reason)]))
    elif dialect == "legacy":
        chunks.extend(_envelope([_choice(d)]) for d in _legacy(response, cuts))
        legacy_finish = "function_call" if response.finish_reason == "tool_calls" else "stop"
        chunks.append(_envelope([_choice({}, legacy_finish)]))
    else:
        deltas = _group(_items(response, dialect, cuts), cuts)
        chunks.extend(_envelope([_choice(d)]) for d in deltas)
        if cuts.finish_on_last and deltas:
            chunks[-1]["choices"][0]["finish_reason"] = response.finish_reason
        else:
            chunks.append(_envelope([_choice({}, response.finish_reason)]))
    if response.usage is not None:
        chunks.append(_envelope([], usage=dict(response.usage)))
    if cuts.role_every:
        for body in chunks:
            for choice in body["choices"]:
                choice["delta"].setdefault("role", "assistant")
    return chunks


# --------------------------------------------------------------------------- JSON values

_TRICKY = st.sampled_from(
    [
        '"',
        "\\",
        '\\"',
        "\\\\",
        "\n",
        "\r\n",
        "\t",
        "\b\f",
        "\x00",
        "\x1f",
        "\x7f",
        "/",
        "\\u0041",
        "\\n",
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        '{"a": 1}',
        "é",
        "ß",
        "中文",
        "\u2028",
        "\ufeff",
        "\ud7ff",
        "\ue000",
        "😀",
        "🧪",
        "👩‍👩‍👧",
        "\U0010ffff",
    ]
)

json_text = st.lists(st.one_of(st.text(max_size=8), _TRICKY), max_size=4).map("".join)

json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=-1000, max_value=1000),
    st.floats(allow_nan=False, allow_infinity=False),
    json_text,
)


def _nested(depth: int) -> st.SearchStrategy[Any]:
    """JSON values nested at most ``depth`` deep (no retries, unlike st.recursive)."""
    if depth == 0:
        return json_leaves
    child = _nested(depth - 1)
    return st.one_of(
        json_leaves,
        st.lists(child, max_size=3),
        st.dictionaries(json_text, child, max_size=3),
    )


json_values = _nested(3)

arguments = st.dictionaries(json_text, json_values, max_size=4)

_WS = st.text(alphabet=" \t\n\r", max_size=2)


@st.composite
def serialised(draw: st.DrawFn, args: dict[str, Any], surround: bool = True) -> str:
    """``args`` as JSON text: ensure_ascii either way, random separators and whitespace."""
    ensure_ascii = draw(st.booleans())
    indent = draw(st.sampled_from([None, None, 0, 2, "\t"]))
    item_sep = draw(_WS) + "," + draw(_WS)
    key_sep = draw(_WS) + ":" + draw(_WS)
    text = json.dumps(
        args, ensure_ascii=ensure_ascii, indent=indent, separators=(item_sep, key_sep)
    )
    if surround and draw(st.integers(0, 4)) == 0:
        text = draw(_WS) + text + draw(_WS)
    return text


_SIGNATURE = st.text(
    alphabet=string.ascii_letters + string.digits + "+/=_-", min_size=1, max_size=40
)


@st.composite
def calls(draw: st.DrawFn, dialect: str, pos: int) -> Call:
    args = draw(arguments)
    ollama = dialect == "ollama_same_index"
    call_id = None if ollama else f"call_{pos}"
    name = draw(st.sampled_from(NAME_POOL))
    signature = draw(st.none() | _SIGNATURE)
    if dialect == "legacy":  # H1: no ids, no signatures; the id is made from the response's
        call_id, signature = f"call_{_CHUNK_ID}", None
    # D2: a zero-argument tool may send "" or no arguments at all; not in the id-less
    # same-index dialect, where an empty call could not be told from a name in pieces.
    if not args and not ollama:
        form = draw(st.sampled_from(["{}", "", "absent"]))
        if form != "{}":
            return Call(call_id, name, args, "", signature, args_absent=form == "absent")
    text = draw(serialised(args))
    if args and draw(st.integers(0, 24)) == 0:  # I1: sent as a JSON string of the object
        return Call(call_id, name, args, json.dumps(text.strip()), signature, encoded=True)
    return Call(call_id, name, args, text, signature)


text_values = st.lists(st.one_of(st.text(max_size=12), _TRICKY), max_size=4).map("".join)


@st.composite
def responses(draw: st.DrawFn, dialect: str, min_calls: int = 1, max_calls: int = 16) -> Response:
    if dialect == "interleaved":
        min_calls = max(min_calls, 2)
    if dialect == "legacy":
        min_calls = max_calls = 1
    n = draw(st.integers(min_calls, max_calls))
    drawn = tuple(draw(calls(dialect, i)) for i in range(n))
    texts = [json.dumps(c.args, sort_keys=True) for c in drawn]
    if dialect in INDEXED and len(set(texts)) == n > 1 and draw(st.integers(0, 2)) == 0:
        # G3: one id for every call (distinct arguments: identical ones would be G4/C4)
        drawn = tuple(Call("call_shared", *astuple_rest(c)) for c in drawn)
    thinking: tuple[tuple[str, str], ...] = ()
    details: tuple[str, ...] = ()
    if dialect != "legacy" and draw(st.integers(0, 4)) == 0:
        texts_ = st.text(min_size=1, max_size=12)
        thinking = tuple(draw(st.lists(st.tuples(texts_, _SIGNATURE), max_size=2)))
        details = tuple(draw(st.lists(texts_, max_size=2)))
    usage = None
    if draw(st.booleans()):
        p, c = draw(st.integers(0, 10_000)), draw(st.integers(0, 10_000))
        usage = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    return Response(
        calls=drawn,
        content=draw(st.just("") | text_values),
        reasoning=draw(st.just("") | text_values),
        finish_reason=draw(st.sampled_from(["tool_calls", "stop"])),
        usage=usage,
        thinking=thinking,
        details=details,
    )


def astuple_rest(call: Call) -> tuple[Any, ...]:
    """A call's fields after its id."""
    return (call.name, call.args, call.text, call.signature, call.args_absent, call.encoded)


# --------------------------------------------------------------------------- cutting


@st.composite
def arg_cut_points(draw: st.DrawFn, text: str) -> tuple[int, ...]:
    """Where to cut one call's argument text: whole, 1 char at a time, inside escapes..."""
    if len(text) < 2:
        return ()
    mode = draw(st.sampled_from(["whole", "one_char", "random", "escapes", "escapes+random"]))
    points: set[int] = set()
    if mode == "one_char":
        return tuple(range(1, len(text)))
    if "escapes" in mode:
        points.update(escape_cuts(text))
    if "random" in mode:
        points.update(draw(st.lists(st.integers(1, len(text) - 1), max_size=10)))
    return tuple(sorted(points))


@st.composite
def text_cuts(draw: st.DrawFn, text: str) -> tuple[int, ...]:
    if len(text) < 2:
        return ()
    if draw(st.integers(0, 5)) == 0:
        return tuple(range(1, len(text)))
    return tuple(sorted(set(draw(st.lists(st.integers(1, len(text) - 1), max_size=5)))))


@st.composite
def cuts_for(draw: st.DrawFn, response: Response, dialect: str) -> Cuts:
    arg_cuts = tuple(draw(arg_cut_points(c.text)) for c in response.calls)
    header = tuple(draw(st.booleans()) for _ in response.calls)
    content_cuts = draw(text_cuts(response.content))
    n_content = len(split_at(response.content, content_cuts))
    n_entries = sum(len(a) + 1 for a in arg_cuts)
    if draw(st.booleans()):
        slots: tuple[int, ...] = ()  # all content before the calls
    else:
        slots = tuple(
            draw(st.lists(st.integers(0, n_entries), min_size=n_content, max_size=n_content))
        )
    thinking_cuts = tuple(draw(text_cuts(text)) for text, _ in response.thinking)
    details_cuts = tuple(draw(text_cuts(text)) for text in response.details)
    n_pieces = sum(len(c) + 2 for c in thinking_cuts) + sum(len(c) + 1 for c in details_cuts)
    n_items = n_entries + n_content + len(response.reasoning) + n_pieces + 1
    merges = frozenset(draw(st.lists(st.integers(1, n_items), max_size=12)))
    wave = dialect in INDEXED
    return Cuts(
        arg_cuts=arg_cuts,
        header_carries_text=header,
        content_cuts=content_cuts,
        reasoning_cuts=draw(text_cuts(response.reasoning)),
        content_slots=slots,
        merges=merges,
        reasoning_key=draw(st.sampled_from(["reasoning_content", "reasoning"])),
        explicit_nones=draw(st.booleans()),
        role_chunk=draw(st.booleans()),
        role_every=draw(st.integers(0, 4)) == 0,
        filter_chunk=draw(st.integers(0, 4)) == 0,
        finish_on_last=draw(st.booleans()),
        round_robin=draw(st.booleans()),
        placeholders=wave and draw(st.integers(0, 4)) == 0,
        type_form=draw(st.sampled_from(["header", "absent", "empty", "every"])),
        digit_indices=wave and draw(st.integers(0, 5)) == 0,
        null_entries=wave and draw(st.integers(0, 5)) == 0,
        thinking_cuts=thinking_cuts,
        details_cuts=details_cuts,
    )


@st.composite
def streamed(draw: st.DrawFn, dialect: str | None = None, max_calls: int = 16) -> Streamed:
    """A response streamed in ``dialect`` (any dialect when None)."""
    if dialect is None:
        dialect = draw(st.sampled_from(DIALECTS))
    response = draw(responses(dialect, max_calls=max_calls))
    cuts = draw(cuts_for(response, dialect))
    return Streamed(response, dialect, cuts, stream(response, dialect, cuts))


def recut_one_char(chunks: list[dict[str, Any]], dialect: str) -> list[dict[str, Any]]:
    """The same stream with every argument text sent one character per chunk.

    Each tool-call entry becomes its header (all its fields, first character) followed by
    one continuation per further character, in the dialect's own continuation form, each
    in a chunk of its own; a chunk's text rides on its first piece, its finish_reason on
    its last.
    """
    out: list[dict[str, Any]] = []
    for chunk in chunks:
        choices = chunk.get("choices") or []
        delta = choices[0].get("delta") if choices else None
        if not delta or not delta.get("tool_calls"):
            out.append(chunk)
            continue
        pieces = [e for entry in delta["tool_calls"] for e in _recut_entry(entry, dialect)]
        finish = choices[0].get("finish_reason")
        rest = {k: v for k, v in delta.items() if k != "tool_calls"}
        for n, entry in enumerate(pieces):
            d = dict(rest) if n == 0 else {}
            d["tool_calls"] = [entry]
            last = n == len(pieces) - 1
            out.append(_envelope([_choice(d, finish if last else None)]))
    return out


def _recut_entry(entry: dict[str, Any], dialect: str) -> list[dict[str, Any]]:
    fn = entry.get("function") or {}
    text = fn.get("arguments")
    if not isinstance(text, str) or len(text) < 2:
        return [entry]
    head = {**entry, "function": {**fn, "arguments": text[0]}}
    out = [head]
    for ch in text[1:]:
        if dialect == "repeated_names":
            cont = {k: v for k, v in entry.items() if k != "extra_content"}
            cont["function"] = {**fn, "arguments": ch}
        else:
            cont = {"function": {"arguments": ch}}
            if "index" in entry and entry["index"] is not None:
                cont["index"] = entry["index"]
        out.append(cont)
    return out


# --------------------------------------------------------------------------- garbage

HUGE = "x" * (1 << 20)  # 1 MiB

weird_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([-1, -(2**63), 2**63, 10**30, 2**31, -(10**30)]),
    st.floats(),  # nan and infinities included
    st.text(max_size=10),
    st.sampled_from(["\ud800", "a\udfffb", "0", "-1", "1e3", "", "null", "{", '{"a":']),
    st.binary(max_size=10),
    st.sampled_from([HUGE, b"{" * 1000, object(), NotImplemented, 1j]),
)

garbage = st.recursive(
    weird_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(st.one_of(st.text(max_size=10), st.integers()), children, max_size=4),
    ),
    max_leaves=12,
)

plain_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)


def _maybe(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Usually ``value``; sometimes garbage in its place, or left out (``...``)."""
    return st.one_of(value, value, value, garbage, st.just(...))


def _dict(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({k: _maybe(v) for k, v in fields.items()}).map(
        lambda d: {k: v for k, v in d.items() if v is not ...}
    )


_index = st.one_of(
    st.integers(0, 3),
    st.integers(),
    st.sampled_from([-1, 2**63, 10**30, 1.5, float("nan"), "0", "1", True, None, b"0"]),
)
_args_text = st.one_of(json_text, st.sampled_from(['{"a": 1}', "{", "}", '"', "\\", ""]))

malformed_tool_calls = _dict(
    index=_index,
    id=st.one_of(st.text(max_size=10), st.sampled_from(["call_1", "call_1__thought__sig"])),
    type=st.sampled_from(["function", "custom", ""]),
    function=_dict(
        name=st.sampled_from([*NAME_POOL, ""]),
        arguments=st.one_of(_args_text, plain_json),
        provider_specific_fields=_dict(thought_signature=st.text(max_size=5)),
    ),
    extra_content=_dict(google=_dict(thought_signature=st.text(max_size=5))),
)

malformed_deltas = _dict(
    role=st.sampled_from(["assistant", "tool", ""]),
    content=st.text(max_size=10),
    reasoning_content=st.text(max_size=10),
    reasoning=st.text(max_size=10),
    tool_calls=st.lists(_maybe(malformed_tool_calls), max_size=3),
)

malformed_chunks = st.one_of(
    _dict(
        id=st.text(max_size=5),
        object=st.just("chat.completion.chunk"),
        choices=st.lists(
            _maybe(
                _dict(
                    index=_index,
                    delta=malformed_deltas,
                    finish_reason=st.sampled_from(
                        ["tool_calls", "stop", "length", "error", "end_turn", None]
                    ),
                )
            ),
            max_size=2,
        ),
        usage=_dict(prompt_tokens=st.integers(), completion_tokens=st.integers()),
    ),
    # Ollama /api/chat NDJSON objects
    _dict(
        model=st.just("qwen3"),
        message=_dict(
            role=st.just("assistant"),
            content=st.text(max_size=10),
            thinking=st.text(max_size=10),
            tool_calls=st.lists(
                _maybe(
                    _dict(function=_dict(name=st.sampled_from(NAME_POOL), arguments=plain_json))
                ),
                max_size=2,
            ),
        ),
        done=st.booleans(),
        prompt_eval_count=st.integers(),
        eval_count=st.integers(),
    ),
    garbage,
    plain_json,
)
