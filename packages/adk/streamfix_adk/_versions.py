"""Every google-adk version threshold the shim depends on, in one place."""

from __future__ import annotations

import functools

from streamfix._shimkit import release

__all__ = [
    "FORWARDED_CALLS_FROM",
    "INDEX_ZERO_KEPT_FROM",
    "LIVE_CALLS_FROM",
    "MALFORMED_SETTLED_FROM",
    "MULTIPLE_CHOICES_LOGGED_FROM",
    "SUPPORTED",
    "THOUGHTS_JOINED_FROM",
    "TRUNCATION_SETTLED_FROM",
    "forwarded_calls",
    "index_zero_kept",
    "live_calls",
    "malformed_settled",
    "multiple_choices_logged",
    "thoughts_joined",
    "truncation_settled",
]

#: Supported google-adk releases: the newest 1.x (1.39+) and 2.x.
SUPPORTED = ">=1.39,<3"

#: From 2.7 ADK's stream loop buffers a call's argument fragments in a list
#: (``args_parts``) and finds the end of its arguments in linear time
#: (``_BraceDepthTracker``): from there the fixed path sends tool-call fragments through
#: ADK's loop as they arrive, so its frame holds them as stock's does. 2.7.1 is the first
#: release known to have it (2.1.0 has not; 2.2 to 2.6 are not tested): before, as on
#: 1.x, the loop re-parses a call's whole arguments at every fragment, and the calls are
#: sent once the stream has ended.
FORWARDED_CALLS_FROM = (2, 7)

#: From 2.10 ``LiteLlm`` yields a partial function-call response per tool-call fragment:
#: tool-call fragments are forwarded live, and ADK's partial-arguments tracker
#: (``streaming_utils._JsonPathTracker``) runs, which a fixed stream swaps for a linear
#: one (``_tracker``) and ``uninstall`` puts back.
LIVE_CALLS_FROM = (2, 10)

#: Before 2.13 ADK's loop sends a fragment at index 0 to its fallback index (the next
#: call) once any call has completed; from 2.13 it keeps it on call 0 while that call is
#: open.
INDEX_ZERO_KEPT_FROM = (2, 13)

#: From 2.10 ADK's stream loop joins the streamed thought parts of a final response as
#: its non-streamed path builds them (one part per thinking block, its text joined, the
#: signature on it: ``_aggregate_streaming_thought_parts``, adk-python#6898). Before, the
#: final holds one thought part per streamed piece (2.8: the signature on an empty part
#: of its own), or, on 1.x, no thinking-block text at all (a piece without a
#: ``signature`` key is not read as a thinking block, and a signature piece without text
#: is dropped).
THOUGHTS_JOINED_FROM = (2, 10)

#: From 2.10 ADK's stream loop settles tool-call arguments it cannot parse as strict JSON
#: itself: it repairs non-strict JSON (unquoted keys, Python literals; 2.13 also Markdown
#: fences, with one warning), and reports arguments that stay unparseable, or are JSON but
#: not an object, as ``MALFORMED_FUNCTION_CALL`` (``MAX_TOKENS`` after ``length``) with
#: the text kept (2.13's tests ``test_streaming_tool_call_repaired_with_*_warns_once``,
#: ``test_streaming_tool_call_non_object_json_arguments_*``). There a malformed call ADK
#: was sent exactly as assembled is ADK's to settle, as on stock. 2.8 repairs such
#: arguments too but raises on the rest: there only what its parser repairs is left to
#: it. 2.9 is not tested.
MALFORMED_SETTLED_FROM = (2, 10)

#: From 2.13 ADK's stream loop reports a call cut off (MAX_TOKENS after ``length``, else
#: MALFORMED_FUNCTION_CALL), runs none of the turn's calls and keeps the text streamed
#: before it in a final response of its own: stock loses nothing, so a cut-off call ADK
#: was sent exactly as assembled is ADK's to report. 2.10 to 2.12 report it too but drop
#: that text (a loss: there the fixed path gives its own error response, the text kept).
TRUNCATION_SETTLED_FROM = (2, 13)

#: From 2.10 ADK's stream loop logs one error for a stream with several choices
#: ("Multiple choices found in streaming response ..."); the fixed path hands it choice 0
#: alone, so it logs that error itself there.
MULTIPLE_CHOICES_LOGGED_FROM = (2, 10)


@functools.cache
def _installed() -> tuple[int, ...]:
    return release("google-adk")


def live_calls() -> bool:
    """Whether the installed google-adk streams partial function-call responses."""
    return _installed() >= LIVE_CALLS_FROM


def forwarded_calls() -> bool:
    """Whether the fixed path sends tool-call fragments through ADK's loop live."""
    return _installed() >= FORWARDED_CALLS_FROM


def index_zero_kept() -> bool:
    """Whether the installed google-adk keeps index-0 fragments on call 0."""
    return _installed() >= INDEX_ZERO_KEPT_FROM


def thoughts_joined() -> bool:
    """Whether the installed google-adk joins streamed thought parts itself."""
    return _installed() >= THOUGHTS_JOINED_FROM


def malformed_settled() -> bool:
    """Whether the installed google-adk settles unparseable tool-call arguments itself."""
    return _installed() >= MALFORMED_SETTLED_FROM


def truncation_settled() -> bool:
    """Whether the installed google-adk reports a cut-off tool call losing nothing."""
    return _installed() >= TRUNCATION_SETTLED_FROM


def multiple_choices_logged() -> bool:
    """Whether the installed google-adk logs a stream with several choices."""
    return _installed() >= MULTIPLE_CHOICES_LOGGED_FROM
