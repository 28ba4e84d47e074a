"""DSPy's streamed errors with their cause kept (the fix; no dspy import).

``dspy.streamify`` runs the program in a task group; when the program fails, its
streamer unwraps the task group's exception group to the one failure
(``_single_failure``) and raises it ``from None``: the LM error's ``__cause__`` (the
provider's or litellm's own exception, and what is on it) is erased. On the repaired
litellm wire that cause is the wire's error: a cut-off call's ``TruncatedToolCallError``
(the complete calls and the partial arguments), restarted arguments'
``MalformedToolCallError`` (the assembled message, wire-shapes I3), litellm's
``APIError`` carrying them; so a DSPy user never reaches them.

:func:`single_failure` replaces ``_single_failure`` in ``dspy.streaming.streamify`` (the
streamer looks the name up when it fails): the same failure, and when it has a cause, it
is raised from that cause right there, in place of stock's ``raise leaf from None``: the
same exception object (``except dspy.LMError`` catches it as before), the exception group
still hidden, the cause kept. A failure without a cause is returned for stock's own
``raise``, unchanged.
"""

from __future__ import annotations

from streamfix._shimkit import stock_of

__all__ = ["single_failure"]


def single_failure(exc: BaseException) -> BaseException | None:
    """The one failure in ``exc`` (stock's answer); raised from its cause if it has one."""
    leaf: BaseException | None = stock_of("dspy.streaming.streamify", "_single_failure")(exc)
    if leaf is None or leaf.__cause__ is None:
        return leaf
    raise leaf from leaf.__cause__
