"""``streamfix.install("litellm")``: patch litellm's stream parsers and its stream.

Replaces ``OllamaChatCompletionResponseIterator.chunk_parser`` (Ollama ``/api/chat``: call
indices and error lines; the iterator looks the method up on its class),
``CustomStreamWrapper.chunk_creator`` (OpenAI-compatible streams: signature-only tool-call
entries kept), ``CustomStreamWrapper.__next__`` and ``__anext__`` (the repaired stream,
``_wire``), ``CustomStreamWrapper._map_stream_exception`` (in-stream errors by the
provider's status, ``_errors``), the parsers of the other dialects (Anthropic, Gemini,
the Responses bridge, Bedrock ConverseStream: ``_dialects``) and
``stream_chunk_builder`` at every binding site (``_builder``); :func:`uninstall` puts
each original attribute back exactly.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

from ._dialects import PARSERS

__all__ = ["SHIM", "SUPPORTED"]

#: The litellm versions this shim was tested on.
SUPPORTED = ">=1.80,<2"

_FIXED_BUILDER = "streamfix_litellm._builder:stream_chunk_builder"

SHIM = Shim(
    "streamfix_litellm",
    "litellm",
    SUPPORTED,
    [
        Site(
            "litellm.llms.ollama.chat.transformation",
            "OllamaChatCompletionResponseIterator.chunk_parser",
            "streamfix_litellm._ollama:chunk_parser",
        ),
        Site(
            "litellm.litellm_core_utils.streaming_handler",
            "CustomStreamWrapper.chunk_creator",
            "streamfix_litellm._openai:chunk_creator",
        ),
        # the wire: every provider's stream, sync and async, repaired (``_wire``)
        Site(
            "litellm.litellm_core_utils.streaming_handler",
            "CustomStreamWrapper.__next__",
            "streamfix_litellm._wire:next_repaired",
        ),
        Site(
            "litellm.litellm_core_utils.streaming_handler",
            "CustomStreamWrapper.__anext__",
            "streamfix_litellm._wire:anext_repaired",
        ),
        Site(
            "litellm.litellm_core_utils.streaming_handler",
            "CustomStreamWrapper._map_stream_exception",
            "streamfix_litellm._errors:map_stream_exception",
            optional=True,  # litellm releases without it map in-stream errors elsewhere
        ),
        # the other dialects' parsers: their calls as the core reads them (``_dialects``)
        *(
            Site(module, attribute, f"streamfix_litellm._dialects:{dialect}_parser", optional=True)
            for dialect, (module, attribute) in PARSERS.items()
        ),
        # stream_chunk_builder in every module that binds it by name: the modules
        # imported here first (so they bind the original), then litellm.main with
        # ``everywhere``: every other module holding the same object (the defining
        # streaming_chunk_builder_utils from litellm 1.81 on, litellm.main before that,
        # and anything that imported it before install). litellm's own logging, cost and
        # proxy code call ``litellm.stream_chunk_builder``; modules that import it inside
        # a function read litellm.main or the defining module at call time.
        Site(
            "litellm.llms.openai.chat.guardrail_translation.handler",
            "stream_chunk_builder",
            _FIXED_BUILDER,
            optional=True,
        ),
        Site(
            "litellm.responses.litellm_completion_transformation.streaming_iterator",
            "stream_chunk_builder",
            _FIXED_BUILDER,
            optional=True,
        ),
        Site("litellm", "stream_chunk_builder", _FIXED_BUILDER),
        Site("litellm.main", "stream_chunk_builder", _FIXED_BUILDER, everywhere=True),
    ],
    trigger="litellm",
    more_drivers={
        "litellm-openai": "OPENAI_DRIVER",
        "litellm-anthropic": "ANTHROPIC_DRIVER",
        "litellm-gemini": "GEMINI_DRIVER",
        "litellm-responses": "RESPONSES_DRIVER",
        "litellm-bedrock": "BEDROCK_DRIVER",
        "agno-litellm": "AGNO_DRIVER",
        "openai-agents-litellm": "OPENAI_AGENTS_LITELLM_DRIVER",
        "strands-litellm": "STRANDS_DRIVER",
    },
)
