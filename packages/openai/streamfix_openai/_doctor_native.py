"""``streamfix doctor``'s columns for the native paths of two frameworks the ``openai``
wire also reaches, for the other dialects (wire-shapes J-M), each over real HTTP against
the replay server (:func:`~streamfix.testing.native_server`) with the provider's own SDK
client:

- ``openai-agents-responses``: the OpenAI Agents SDK's ``OpenAIResponsesModel`` (a real
  ``AsyncOpenAI``) under ``Runner.run_streamed``, OpenAI Responses events (J): the calls,
  text and reasoning signatures (``encrypted_content``) of the first model response's
  items;
- ``strands-bedrock``: strands' ``BedrockModel`` (boto3's ``bedrock-runtime`` client,
  placeholder credentials, its endpoint the server) under ``Agent.stream_async``, Bedrock
  ``ConverseStream`` (M): the ``toolUse``, ``text`` and ``reasoningContent`` (its
  signature) blocks of the first assistant message.

Both run to the end (the tools run, the next request gets the scenario's follow-up text).
Neither reads the openai wire: their columns install the ``openai`` patch, which leaves
them as shipped, and each reads every scenario of its dialect right stock (the README's
table). The frameworks are imported when a scenario is driven.
"""

from __future__ import annotations

import importlib
from typing import Any

from streamfix import testing
from streamfix.testing import DOCTOR_API_KEY, aclose, native_outcome, native_server, tool_names

__all__ = ["OPENAI_AGENTS_RESPONSES_DRIVER", "STRANDS_BEDROCK_DRIVER", "strands_agent"]

PROMPT = testing.DOCTOR_PROMPT


# -- openai-agents -----------------------------------------------------------------------------


async def _agents_run(scenario: testing.Scenario) -> Any:
    openai: Any = importlib.import_module("openai")
    agents: Any = importlib.import_module("agents")
    client = openai.AsyncOpenAI(
        base_url=f"{native_server().url}/v1", api_key=DOCTOR_API_KEY, max_retries=0
    )
    model = agents.OpenAIResponsesModel(model=scenario.name, openai_client=client)
    agent = agents.Agent(name="streamfix", model=model, tools=testing.openai_agents_tools(scenario))
    config = agents.RunConfig(tracing_disabled=True)
    try:
        result = agents.Runner.run_streamed(agent, PROMPT, run_config=config)
        async for _ in result.stream_events():
            pass
    finally:
        await aclose(client)
    return result


def _agents_read(result: Any) -> testing.Outcome:
    calls, text, kept = [], [], []
    for item in result.raw_responses[0].output:
        if item.type == "function_call":
            calls.append((item.name, testing.parse_arguments(item.arguments)))
        elif item.type == "message":
            text += [part.text for part in item.content if part.type == "output_text"]
        elif item.type == "reasoning" and item.encrypted_content:
            kept.append(item.encrypted_content)
    return testing.Outcome(tuple(calls), "".join(text), reasoning_signatures=tuple(kept))


def _agents_drive(scenario: testing.Scenario) -> testing.Outcome:
    return native_outcome(lambda: _agents_run(scenario), _agents_read)


# -- strands -----------------------------------------------------------------------------------


def _strands_ok(tool_use: Any, **_: Any) -> dict[str, Any]:
    return {"toolUseId": tool_use["toolUseId"], "status": "success", "content": [{"text": "ok"}]}


def strands_agent(scenario: testing.Scenario) -> Any:
    """An ``Agent`` on ``BedrockModel`` (a boto3 session with placeholder credentials,
    its endpoint the server), with a tool of each name the scenario's calls use."""
    boto3: Any = importlib.import_module("boto3")
    strands: Any = importlib.import_module("strands")
    bedrock: Any = importlib.import_module("strands.models.bedrock")
    tools_module: Any = importlib.import_module("strands.tools.tools")
    session = boto3.Session(
        aws_access_key_id="x", aws_secret_access_key="x", region_name="us-east-1"
    )
    model = bedrock.BedrockModel(
        model_id=scenario.name, boto_session=session, endpoint_url=native_server().url
    )
    schema = {"json": {"type": "object"}}
    tools = [
        tools_module.PythonAgentTool(
            name, {"name": name, "description": name, "inputSchema": schema}, _strands_ok
        )
        for name in tool_names(scenario)
    ]
    return strands.Agent(model=model, tools=tools, callback_handler=None)


async def _strands_run(scenario: testing.Scenario) -> Any:
    agent = strands_agent(scenario)
    async for _ in agent.stream_async(PROMPT):
        pass
    return agent


def _strands_read(agent: Any) -> testing.Outcome:
    message = next(m for m in agent.messages if m["role"] == "assistant")
    calls, text, kept = [], [], []
    for block in message["content"]:
        if "toolUse" in block:
            calls.append((block["toolUse"]["name"], block["toolUse"]["input"]))
        elif "text" in block:
            text.append(block["text"])
        elif "reasoningContent" in block:
            signature = (block["reasoningContent"].get("reasoningText") or {}).get("signature")
            if signature:
                kept.append(signature)
    return testing.Outcome(tuple(calls), "".join(text), reasoning_signatures=tuple(kept))


def _strands_drive(scenario: testing.Scenario) -> testing.Outcome:
    from ._doctor_strands import quiet

    with quiet():
        return native_outcome(lambda: _strands_run(scenario), _strands_read)


def _driver(package: str, dialect: testing.Dialect, module: str, drive: Any, what: str) -> Any:
    return testing.Driver("openai", package, dialect, module, drive, what)


OPENAI_AGENTS_RESPONSES_DRIVER = _driver(
    "openai-agents",
    "responses",
    "agents",
    _agents_drive,
    "Runner.run_streamed on OpenAIResponsesModel over HTTP (OpenAI Responses, native)",
)
STRANDS_BEDROCK_DRIVER = _driver(
    "strands-agents",
    "bedrock",
    "strands",
    _strands_drive,
    "Agent.stream_async on BedrockModel, boto3 over HTTP (Bedrock ConverseStream, native)",
)
