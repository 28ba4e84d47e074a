"""streamfix.testing: the public shape corpus, capture reading, the replay server, the
pytest plugin, and what the doctor's drivers share.

- the corpus: :data:`SCENARIOS` / :func:`scenarios` (every wire shape of
  ``docs/wire-shapes.md`` as a :class:`Scenario`: chunks, what they must assemble to, the
  same response non-streamed), :func:`text_chunks`; the other wire dialects' corpus
  (wire-shapes J-M: Responses, Anthropic, Gemini native, Bedrock), kept apart:
  :data:`DIALECT_SCENARIOS` / :func:`dialect_scenarios`, and the builders that write a
  response in each (:func:`responses_stream`, :func:`anthropic_stream`,
  :func:`gemini_stream`, :func:`bedrock_stream`);
- captures: :func:`read_capture` (JSONL, raw SSE text or Ollama NDJSON; a
  :class:`CaptureError` for anything else), :func:`load_capture` (the same as a
  :class:`Scenario`), :func:`parse_sse` / :func:`parse_lines` (one stream's text);
- scripted multi-round loops: :data:`ROUNDS` / :func:`rounds` (:class:`Rounds`: round
  ``N`` answers only when the request carries rounds 1 to ``N - 1`` back right, else a
  :class:`RoundMismatch`, which the server answers with HTTP 400);
- the replay server: :class:`ReplayApp` (plain ASGI), :class:`ReplayServer` (on uvicorn in a
  background thread, the optional ``serve`` extra), and the ASGI helpers both it and
  ``streamfix record`` run on (:class:`BackgroundServer`, :func:`read_body`...);
- the doctor's data types, for the shims' drivers: :class:`Driver`, :class:`Outcome`,
  :func:`judge` and their helpers; the drivers by column (:data:`DRIVERS`, from the
  ``streamfix.patches`` entry points) and :func:`stock_and_patched`;
- what the drivers of frameworks on a wire share: a scenario answered in process to the
  framework's real client as the replay server answers it (:func:`served_http_client`,
  :func:`served_response`, :func:`sse`, :func:`tool_names`, :func:`declared_tools`), and
  what the framework raised read as the doctor counts it (:func:`outcome_of`,
  :func:`raised`, :func:`settled`: the wire's documented end of an unrepairable shape);
- what the two columns of each agent SDK (its model on the openai wire and on litellm's)
  share: the tools, the streamed run and its reading (:func:`openai_agents_tools`,
  :func:`openai_agents_run`, :func:`openai_agents_read`, :func:`provider_data`;
  :func:`strands_tools`, :func:`strands_run`, :func:`strands_read`), and
  :func:`quiet_loggers`;
- the native columns' shared serving (the frameworks' own paths for the other dialects):
  :func:`native_server`, :func:`native_outcome`, :func:`aclose`;
- live checks (``streamfix doctor --live``): :class:`LiveCase` / :data:`LIVE_CASES`,
  :class:`LiveTarget`, :func:`detect_api`, :func:`live_check` (a :class:`LiveResult`:
  a framework's streamed answer, stock and patched, against the same request answered
  non-streamed);
- the repaired stream's form (wire-shapes R2-R8): :func:`is_canonical`,
  :func:`canonical_problems`.

The pytest plugin (entry point ``pytest11``) is :mod:`streamfix.testing._pytest_plugin`.

Importing this package loads no socket, thread or uvicorn: the server imports them when
it starts. The pytest plugin (loaded in every project that installs adk-streamfix)
imports this package only when one of its fixtures is used.
"""

from . import (
    _agent_sdks,
    _asgi,
    _canonical,
    _capture,
    _cases,
    _corpus,
    _dialect_corpus,
    _doctor,
    _drivers,
    _eventstream,
    _live,
    _native,
    _rounds,
    _served,
    _server,
)
from ._agent_sdks import *  # noqa: F403
from ._asgi import *  # noqa: F403
from ._canonical import *  # noqa: F403
from ._capture import *  # noqa: F403
from ._cases import *  # noqa: F403
from ._corpus import *  # noqa: F403
from ._dialect_corpus import *  # noqa: F403
from ._doctor import *  # noqa: F403
from ._drivers import *  # noqa: F403
from ._eventstream import *  # noqa: F403
from ._live import *  # noqa: F403
from ._native import *  # noqa: F403
from ._rounds import *  # noqa: F403
from ._served import *  # noqa: F403
from ._server import *  # noqa: F403

__all__: list[str] = []
__all__ += _agent_sdks.__all__
__all__ += _asgi.__all__
__all__ += _canonical.__all__
__all__ += _capture.__all__
__all__ += _cases.__all__
__all__ += _corpus.__all__
__all__ += _dialect_corpus.__all__
__all__ += _doctor.__all__
__all__ += _drivers.__all__
__all__ += _eventstream.__all__
__all__ += _live.__all__
__all__ += _native.__all__
__all__ += _rounds.__all__
__all__ += _served.__all__
__all__ += _server.__all__
