"""``streamfix doctor``'s columns for the framework paths that read the other dialects
natively (wire-shapes J-M), each over real HTTP against the replay server with the
provider's own SDK client:

- ``pydantic-ai-anthropic``: pydantic-ai's ``AnthropicModel`` (a real ``AsyncAnthropic``),
  Anthropic Messages events (K);
- ``pydantic-ai-google``: pydantic-ai's ``GoogleModel`` (a real ``google.genai.Client``),
  Gemini ``streamGenerateContent`` chunks (L);
- ``pydantic-ai-responses``: pydantic-ai's ``OpenAIResponsesModel`` (a real
  ``AsyncOpenAI``), OpenAI Responses events (J);
- ``openai-agents-responses``: the OpenAI Agents SDK's ``OpenAIResponsesModel`` under
  ``Runner.run_streamed`` (J);
- ``strands-bedrock``: strands' ``BedrockModel`` (boto3's ``bedrock-runtime`` client,
  placeholder credentials, pointed at the server), Bedrock ``ConverseStream`` (M).

pydantic-ai runs with ``Agent.iter`` to its end, every model request streamed (the tools
run, the next request gets the scenario's follow-up text): the calls are the first model
request's ``ModelResponse`` (``ToolCallPart`` s; the thought signature in
``provider_details``), its text the ``TextPart`` s, its reasoning signatures those of its
``ThinkingPart`` s; what the run raises is the outcome. A cut call (E4) is in that
response as a ``ToolCallPart`` with the cut arguments (``finish_reason`` ``length``): the
agent sends the validation error back as a retry (``IncompleteToolCall`` only once the
retries are spent), and the doctor counts the cut call handed on.
openai-agents: the first model response's items (``function_call``, ``message``,
``reasoning`` with ``encrypted_content``). strands: the first assistant message's blocks
(``toolUse``, ``text``, ``reasoningContent`` with its signature).

None of these paths reads the openai wire: their column installs the ``openai`` patch,
which leaves them as shipped, so patched is stock (no patch of its own yet: the README
says what each loses). The server is started once, on first use, on a free loopback port
(the ``serve`` extra's uvicorn), and serves every later scenario. The frameworks are
imported when a scenario is driven.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

from streamfix import testing

from ._served import API_KEY, tool_names

__all__ = [
    "OPENAI_AGENTS_RESPONSES_DRIVER",
    "PYDANTIC_AI_ANTHROPIC_DRIVER",
    "PYDANTIC_AI_GOOGLE_DRIVER",
    "PYDANTIC_AI_RESPONSES_DRIVER",
    "STRANDS_BEDROCK_DRIVER",
    "pydantic_ai_agent",
    "pydantic_ai_run",
    "server",
    "strands_agent",
]

PROMPT = "What is the weather in Paris, and the time?"
_SERVER: list[testing.ReplayServer] = []


def server() -> testing.ReplayServer:
    """The replay server the columns share, started on first use."""
    if not _SERVER:
        _SERVER.append(testing.ReplayServer().start())
    return _SERVER[0]


# -- the provider's words in a framework's error ---------------------------------------------


def _provider_error(error: BaseException) -> tuple[str, str] | None:
    """The provider's error code and words where the framework's error keeps them: a
    pydantic-ai ``ModelHTTPError``'s ``body``, botocore's ``EventStreamError.response``,
    the ``ResponseError`` an openai-agents ``ModelBehaviorError`` spells out."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        code, words = inner.get("type") or inner.get("code"), inner.get("message")
        if code and words:
            return str(code), str(words)
    response = getattr(error, "response", None)
    if isinstance(response, dict) and isinstance(response.get("Error"), dict):
        found = response["Error"]
        if found.get("Code") and found.get("Message"):
            return str(found["Code"]), str(found["Message"])
    spelled = re.search(r"ResponseError\(code='([^']*)', message='([^']*)'", str(error))
    return (spelled[1], spelled[2]) if spelled else None


def _raised(error: BaseException) -> testing.Outcome:
    outcome = testing.failure(error)
    provider = _provider_error(error)
    if provider is None:
        return outcome
    return testing.Outcome(error=f"{provider[0]}: {provider[1]} ({outcome.error})")


def _drive(run: Callable[[], Any], read: Callable[[Any], testing.Outcome]) -> testing.Outcome:
    try:
        result = run()
        if hasattr(result, "__await__"):
            import asyncio

            result = asyncio.run(result)
    except Exception as error:  # what the framework raised is the outcome
        return _raised(error)
    return read(result)


# -- pydantic-ai -------------------------------------------------------------------------------


async def _close(client: Any) -> None:
    """An SDK client closed in the run's own event loop (else its connections are closed
    by the garbage collector after the loop: a warning each)."""
    aio = getattr(client, "aio", None)  # google-genai: the async client's connections
    closing = aio.aclose() if aio is not None else client.close()
    if hasattr(closing, "__await__"):
        await closing


def _pydantic_ai_model(scenario: testing.Scenario, clients: list[Any]) -> Any:
    url = server().url
    if scenario.dialect == "anthropic":
        anthropic: Any = importlib.import_module("anthropic")
        models: Any = importlib.import_module("pydantic_ai.models.anthropic")
        providers: Any = importlib.import_module("pydantic_ai.providers.anthropic")
        client = anthropic.AsyncAnthropic(base_url=url, api_key=API_KEY, max_retries=0)
        clients.append(client)
        provider = providers.AnthropicProvider(anthropic_client=client)
        return models.AnthropicModel(scenario.name, provider=provider)
    if scenario.dialect == "gemini":
        genai: Any = importlib.import_module("google.genai")
        models = importlib.import_module("pydantic_ai.models.google")
        providers = importlib.import_module("pydantic_ai.providers.google")
        options = genai.types.HttpOptions(base_url=url)
        client = genai.Client(api_key=API_KEY, http_options=options)
        clients.append(client)
        return models.GoogleModel(scenario.name, provider=providers.GoogleProvider(client=client))
    openai: Any = importlib.import_module("openai")
    models = importlib.import_module("pydantic_ai.models.openai")
    providers = importlib.import_module("pydantic_ai.providers.openai")
    client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key=API_KEY, max_retries=0)
    clients.append(client)
    provider = providers.OpenAIProvider(openai_client=client)
    return models.OpenAIResponsesModel(scenario.name, provider=provider)


def _ok(**arguments: Any) -> str:
    return "ok"


def pydantic_ai_agent(scenario: testing.Scenario, clients: list[Any]) -> Any:
    """An ``Agent`` on the scenario's dialect's native model (``AnthropicModel``,
    ``GoogleModel``, ``OpenAIResponsesModel``) pointed at the server, with a tool of each
    name its calls use (any object accepted); the SDK client it made is added to
    ``clients``."""
    pydantic_ai: Any = importlib.import_module("pydantic_ai")
    tools = [
        pydantic_ai.Tool.from_schema(_ok, name, name, {"type": "object"})
        for name in tool_names(scenario)
    ]
    return pydantic_ai.Agent(_pydantic_ai_model(scenario, clients), tools=tools)


async def pydantic_ai_run(scenario: testing.Scenario) -> Any:
    """:func:`pydantic_ai_agent` run with ``Agent.iter`` to its end, every model request
    streamed (the server streams only): the first request's ``ModelResponse``. What the
    run raises is raised."""
    pydantic_ai: Any = importlib.import_module("pydantic_ai")
    clients: list[Any] = []
    first = None
    try:
        async with pydantic_ai_agent(scenario, clients).iter(PROMPT) as run:
            node = run.next_node
            while not pydantic_ai.Agent.is_end_node(node):
                if pydantic_ai.Agent.is_model_request_node(node):
                    async with node.stream(run.ctx) as stream:
                        async for _ in stream:
                            pass
                    first = stream.response if first is None else first
                node = await run.next(node)
    finally:
        for client in clients:
            await _close(client)
    return first


def _pydantic_ai_read(response: Any) -> testing.Outcome:
    calls, signed, text, kept = [], [], [], []
    for part in response.parts:
        if part.part_kind == "tool-call":
            calls.append((part.tool_name, testing.parse_arguments(part.args)))
            details = getattr(part, "provider_details", None) or {}
            signed.append(bool(details.get("thought_signature")))
        elif part.part_kind == "text":
            text.append(part.content)
        elif part.part_kind == "thinking" and part.signature:
            kept.append(part.signature)
    return testing.Outcome(
        tuple(calls), "".join(text), signatures=tuple(signed), reasoning_signatures=tuple(kept)
    )


def _pydantic_ai_drive(scenario: testing.Scenario) -> testing.Outcome:
    return _drive(lambda: pydantic_ai_run(scenario), _pydantic_ai_read)


# -- openai-agents -----------------------------------------------------------------------------


async def _agents_ok(context: Any, arguments: str) -> str:
    return "ok"


async def _agents_run(scenario: testing.Scenario) -> Any:
    openai: Any = importlib.import_module("openai")
    agents: Any = importlib.import_module("agents")
    client = openai.AsyncOpenAI(base_url=f"{server().url}/v1", api_key=API_KEY, max_retries=0)
    model = agents.OpenAIResponsesModel(model=scenario.name, openai_client=client)
    tools = [
        agents.FunctionTool(
            name=name,
            description=name,
            params_json_schema={"type": "object", "properties": {}},
            on_invoke_tool=_agents_ok,
            strict_json_schema=False,
        )
        for name in tool_names(scenario)
    ]
    agent = agents.Agent(name="streamfix", model=model, tools=tools)
    config = agents.RunConfig(tracing_disabled=True)
    try:
        result = agents.Runner.run_streamed(agent, PROMPT, run_config=config)
        async for _ in result.stream_events():
            pass
    finally:
        await _close(client)
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
    return _drive(lambda: _agents_run(scenario), _agents_read)


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
        model_id=scenario.name, boto_session=session, endpoint_url=server().url
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
        return _drive(lambda: _strands_run(scenario), _strands_read)


def _driver(package: str, dialect: testing.Dialect, module: str, drive: Any, what: str) -> Any:
    return testing.Driver("openai", package, dialect, module, drive, what)


PYDANTIC_AI_ANTHROPIC_DRIVER = _driver(
    "pydantic-ai-slim",
    "anthropic",
    "pydantic_ai.models.anthropic",
    _pydantic_ai_drive,
    "Agent.iter on AnthropicModel over HTTP (Anthropic Messages, native)",
)
PYDANTIC_AI_GOOGLE_DRIVER = _driver(
    "pydantic-ai-slim",
    "gemini",
    "pydantic_ai.models.google",
    _pydantic_ai_drive,
    "Agent.iter on GoogleModel over HTTP (Gemini streamGenerateContent, native)",
)
PYDANTIC_AI_RESPONSES_DRIVER = _driver(
    "pydantic-ai-slim",
    "responses",
    "pydantic_ai",
    _pydantic_ai_drive,
    "Agent.iter on OpenAIResponsesModel over HTTP (OpenAI Responses, native)",
)
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
