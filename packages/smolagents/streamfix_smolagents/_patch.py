"""Patch smolagents: ``install()`` / ``uninstall()`` (entry point ``smolagents``).

Binding sites of ``agglomerate_stream_deltas``:

* ``smolagents.models`` defines it: it gets the drop-in
  :func:`~streamfix_smolagents.agglomerate_stream_deltas`;
* ``smolagents.agents`` (the streamed step) and ``smolagents.gradio_ui`` (the live chat)
  imported the name at import time and call it on a growing list at every live update:
  they get :func:`~streamfix_smolagents.agglomerate_growing_deltas` (linear time, same
  final message).

``generate_stream`` of every model class that reads ``event.choices[0]`` of each provider
event (``OpenAIModel``, whose subclass ``AzureOpenAIModel`` and alias ``OpenAIServerModel``
share it, ``LiteLLMModel`` and its subclass ``LiteLLMRouterModel``, and
``InferenceClientModel``) gets stock's own generator run on choice 0's events alone, a
provider error in the stream raised with the provider's text
(:func:`~streamfix_smolagents._stream.choice_zero_stream`).

Whatever each site held before is saved and put back by :func:`uninstall`.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

from ._stream import choice_zero_stream

__all__ = ["SHIM", "SUPPORTED"]

SUPPORTED = ">=1.24,<2"
"""The smolagents versions this patch supports (tested: 1.24 and the newest)."""

NAME = "agglomerate_stream_deltas"
_GROWING = "streamfix_smolagents._incremental:agglomerate_growing_deltas"
#: The model classes whose own ``generate_stream`` takes ``event.choices[0]`` of every
#: event (smolagents 1.24 to 1.26 alike).
STREAMING_MODELS = ("OpenAIModel", "LiteLLMModel", "InferenceClientModel")


SHIM = Shim(
    "streamfix_smolagents",
    "smolagents",
    SUPPORTED,
    [
        Site("smolagents.models", NAME, "streamfix_smolagents._agglomerate:" + NAME),
        Site("smolagents.agents", NAME, _GROWING, optional=True),
        # An optional UI whose own dependencies may be missing.
        Site("smolagents.gradio_ui", NAME, _GROWING, optional=True),
        *(
            Site("smolagents.models", f"{model}.generate_stream", choice_zero_stream)
            for model in STREAMING_MODELS
        ),
    ],
    trigger="smolagents",
    more_drivers={"smolagents-litellm": "LITELLM_DRIVER"},
)
