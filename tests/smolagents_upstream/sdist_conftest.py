"""The fixtures smolagents' tests use and its sdist does not ship, written from what the
tests expect of them (nothing of upstream's fixture modules is copied).

``prepare_sdist.py`` writes this file as the sdist's ``tests/conftest.py``; it is not named
``conftest.py`` here so that this repository's own test runs never load it. Without it, 26
tests of ``tests/test_models.py`` and ``tests/test_agents.py`` error at setup in every run
(``fixture 'test_tool' not found``), stock and patched alike, and so prove nothing.

* ``test_tool``: a tool named ``test_tool`` with one string input ``input``; it answers
  ``"Processed: <input>"`` and raises on ``"error"`` (``test_process_tool_calls`` expects
  an ``AgentToolExecutionError`` for that input, an ``AgentToolCallError`` for an unknown
  argument; the streaming tests expect ``"Processed: output1\\nProcessed: output2"``);
* ``example_tool``: any valid tool (``test_prepare_completion_kwargs_tool_choice`` passes
  it as ``tools_to_call_from``);
* ``get_agent_dict``: ``get_agent_dict(version)``, an ``agent.json`` as smolagents
  ``version`` saved it, holding what ``test_from_folder`` asserts after loading it (name
  ``test_agent``, 10 steps, planning every 2, ``pandas`` imported, verbosity 2, ...); the
  older versions name the model class ``HfApiModel``, which ``from_folder`` renames.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from smolagents.tools import Tool, tool


class _ProcessingTool(Tool):
    name = "test_tool"
    description = "Processes its input and says so."
    inputs = {"input": {"type": "string", "description": "The text to process."}}  # noqa: RUF012
    output_type = "string"

    def forward(self, input: str) -> str:
        if input == "error":
            raise ValueError("the tool failed on purpose")
        return f"Processed: {input}"


@pytest.fixture
def test_tool() -> Tool:
    return _ProcessingTool()


@pytest.fixture
def example_tool() -> Tool:
    @tool
    def valid_tool_function(input: str) -> str:
        """Upper-cases its input.

        Args:
            input: The text to upper-case.
        """
        return input.upper()

    return valid_tool_function


def _agent_dict(version: str) -> dict[str, Any]:
    model_class = "HfApiModel" if version in ("v1.9", "v1.10") else "InferenceClientModel"
    templates: dict[str, Any] = {
        "system_prompt": "dummy system prompt",
        "planning": {
            "initial_plan": "dummy initial plan",
            "update_plan_pre_messages": "dummy update plan pre messages",
            "update_plan_post_messages": "dummy update plan post messages",
        },
        "managed_agent": {"task": "dummy task", "report": "dummy report"},
        "final_answer": {
            "pre_messages": "dummy pre messages",
            "post_messages": "dummy post messages",
        },
    }
    agent: dict[str, Any] = {
        "tools": [],
        "model": {
            "class": model_class,
            "data": {"model_id": "Qwen/Qwen2.5-Coder-32B-Instruct", "max_tokens": 4096},
        },
        "managed_agents": {},
        "prompt_templates": templates,
        "max_steps": 10,
        "verbosity_level": 2,
        "planning_interval": 2,
        "name": "test_agent",
        "description": "dummy description",
        "requirements": ["smolagents"],
        "authorized_imports": ["pandas"],
    }
    if version != "v1.9":
        agent["executor_type"] = "local"
        agent["executor_kwargs"] = {}
        agent["max_print_outputs_length"] = None
    if version == "v1.20":
        agent["use_structured_output"] = False
    return agent


@pytest.fixture
def get_agent_dict() -> Callable[[str], dict[str, Any]]:
    return _agent_dict
