"""The pytest plugin's corpus fixture ``streamfix_shape``, in a pytester project."""

from __future__ import annotations

import pytest

import streamfix
import streamfix.testing

pytest_plugins = ["pytester"]

OPENAI_COMPLETE = [
    n
    for n, s in streamfix.testing.scenarios("openai").items()
    if s.error is None and not s.truncated
]


def test_a_test_runs_once_per_scenario(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import json
        import streamfix

        def test_aggregator(streamfix_shape):
            scenario = streamfix_shape
            if scenario.error or scenario.truncated:
                return
            message = streamfix.assemble(scenario.chunks)
            got = [{"name": c.name, "arguments": c.parsed} for c in message.tool_calls]
            assert got == [{"name": c["name"], "arguments": c["arguments"]}
                           for c in scenario.calls]
            assert message.content == scenario.text
        """
    )
    result = pytester.runpytest("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(streamfix.testing.SCENARIOS))
    result.stdout.fnmatch_lines(["*test_aggregator[[]b2-same-index[]] PASSED*"])


def test_a_broken_aggregator_fails_on_the_shapes_it_loses(pytester: pytest.Pytester) -> None:
    """An aggregator keyed on ``index`` only (what most frameworks do) fails B2 and B3."""
    pytester.makepyfile(
        """
        import json
        import pytest

        def naive(chunks):
            calls = {}
            for chunk in chunks:
                for choice in chunk.get("choices", []):
                    for tc in choice["delta"].get("tool_calls") or []:
                        call = calls.setdefault(tc.get("index", 0), {"name": "", "args": ""})
                        call["name"] += tc.get("function", {}).get("name") or ""
                        call["args"] += tc.get("function", {}).get("arguments") or ""
            return [(c["name"], json.loads(c["args"])) for c in calls.values()]

        @pytest.mark.streamfix_shapes(dialect="openai", complete=True)
        def test_naive(streamfix_shape):
            assert naive(streamfix_shape.chunks) == [
                (c["name"], c["arguments"]) for c in streamfix_shape.calls]
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] + outcomes["failed"] == len(OPENAI_COMPLETE)
    result.stdout.fnmatch_lines(
        ["FAILED *test_naive[[]b2-same-index[]]*", "FAILED *test_naive[[]b3-same-index[]]*"]
    )


def test_selection_by_name_and_the_expected_message(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.streamfix_shapes(names=["e4-truncated", "ollama-oom-error"])
        def test_selected(streamfix_shape):
            assert streamfix_shape.truncated or streamfix_shape.error

        @pytest.mark.streamfix_shapes(names=["a1-one-chunk"])
        def test_completion(streamfix_shape):
            message = streamfix_shape.completion()["choices"][0]["message"]
            assert [c["function"]["name"] for c in message["tool_calls"]] == [
                "get_weather", "get_time"]
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_unknown_scenario_name_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.streamfix_shapes(names=["no-such-shape"])
        def test_x(streamfix_shape):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*no scenario named*no-such-shape*"])
