"""``streamfix doctor``'s driver for shell_gpt: a corpus scenario through
``Handler.get_completion``, its completion function replaced by one replaying the
scenario's chunks. shell_gpt is imported when a scenario is driven.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

from streamfix import testing

__all__ = ["DRIVER", "drive", "live"]


@contextlib.contextmanager
def _sgpt_home() -> Iterator[None]:
    """shell_gpt writes its configuration (and asks for a key) when first imported: the
    first import happens with a throw-away home and a dummy key."""
    if "sgpt.handlers.handler" in sys.modules:
        yield
        return
    saved = {name: os.environ.get(name) for name in ("HOME", "OPENAI_API_KEY")}
    home = tempfile.mkdtemp(prefix="streamfix-doctor-sgpt-")
    os.environ["HOME"] = home
    os.environ.setdefault("OPENAI_API_KEY", "sk-streamfix-doctor")
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """shell_gpt's ``Handler.get_completion`` (the default handler) with its completion
    function streaming openai ``ChatCompletionChunk`` objects; tool functions record the
    calls they are run with."""
    with _sgpt_home():
        handler: Any = importlib.import_module("sgpt.handlers.handler")
        function: Any = importlib.import_module("sgpt.function")
        default: Any = importlib.import_module("sgpt.handlers.default_handler")
    responses = [testing.fresh_chunks(scenario)]
    ran: list[tuple[str, Any]] = []

    def completion(**_: Any) -> Iterator[Any]:
        bodies = (
            responses.pop(0)
            if responses
            else list(testing.text_chunks(scenario.follow_up, "openai"))
        )
        return testing.openai_stream(bodies)

    def get_function(name: str) -> Callable[..., str]:
        def tool(**kwargs: Any) -> str:
            ran.append((name, kwargs))
            return "ok"

        return tool

    saved = {
        "completion": handler.completion,
        "use_litellm": handler.use_litellm,
        "additional_kwargs": handler.additional_kwargs,
        "get_function": handler.get_function,
    }
    saved_function = function.get_function
    handler.completion, handler.use_litellm, handler.additional_kwargs = completion, False, {}
    handler.get_function = function.get_function = get_function
    role = SimpleNamespace(name="ShellGPT", role="You are ShellGPT.")
    functions = [
        {"type": "function", "function": {"name": call["name"], "parameters": {}}}
        for call in scenario.calls
    ] or [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    messages = [{"role": "user", "content": "go"}]
    try:
        output = "".join(
            default.DefaultHandler(role, markdown=False).get_completion(
                model="streamfix",
                temperature=0.0,
                top_p=1.0,
                messages=messages,
                functions=functions,
                caching=False,
            )
        )
    except Exception as error:
        outcome = testing.failure(error)
        return testing.Outcome(tuple(ran), error=outcome.error, crash=outcome.crash)
    finally:
        for name, value in saved.items():
            setattr(handler, name, value)
        function.get_function = saved_function
    reported = output if "not run" in output else None
    text = None if ran or reported else output
    return testing.Outcome(tuple(ran), text, reported)


# One shell_gpt function per tool of the case: the tool's own schema; running it records
# its name and arguments (as one JSON line) and runs nothing.
_FUNCTION = """
import json, os

from pydantic import BaseModel


class Function(BaseModel):
    @classmethod
    def execute(cls, **arguments):
        with open(os.environ["STREAMFIX_RECORD"], "a", encoding="utf-8") as out:
            out.write(json.dumps([SCHEMA["function"]["name"], arguments]) + "\\n")
        return "ok"

    @classmethod
    def openai_schema(cls):
        return SCHEMA


SCHEMA = json.loads(%r)
"""
_PATCHED_MAIN = "import streamfix; streamfix.install('sgpt'); from sgpt import cli; cli()"
_LOW_LEVEL = ("KeyError", "TypeError", "IndexError", "AttributeError", "ValueError", "Decode")


def live(target: testing.LiveTarget, case: testing.LiveCase, stream: bool) -> testing.Outcome:
    """The ``sgpt`` command line (a fresh process, its own home; patched when the ``sgpt``
    patch is installed here: a one-line wrapper installs it first) with one function per
    tool of the case (``--functions``; ``--no-functions`` for text only), the last user
    message as the prompt, ``--temperature 0``. shell_gpt always streams (``stream`` is
    ignored) and sends no seed or other options (``Driver.live_options`` false)."""
    with _sgpt_home():  # the patch imports sgpt here: first with a throw-away home
        importlib.import_module("sgpt.handlers.handler")
    import streamfix

    with tempfile.TemporaryDirectory(prefix="streamfix-live-sgpt-") as home:
        folder = os.path.join(home, "functions")
        os.mkdir(folder)
        for number, tool in enumerate(case.tools):
            with open(os.path.join(folder, f"tool_{number}.py"), "w", encoding="utf-8") as out:
                out.write(_FUNCTION % json.dumps(tool))
        record = os.path.join(home, "ran.jsonl")
        env = {
            **os.environ,
            "HOME": home,
            "API_BASE_URL": target.url,
            "DEFAULT_MODEL": target.model,
            "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY") or "sk-streamfix-live",
            "OPENAI_FUNCTIONS_PATH": folder,
            "CACHE_PATH": os.path.join(home, "cache"),
            "CHAT_CACHE_PATH": os.path.join(home, "chat_cache"),
            "SHOW_FUNCTIONS_OUTPUT": "false",
            "PRETTIFY_MARKDOWN": "false",
            "STREAMFIX_RECORD": record,
        }
        main = ["-c", _PATCHED_MAIN] if "sgpt" in streamfix.installed() else ["-m", "sgpt"]
        prompt = next(
            (str(m["content"]) for m in reversed(case.messages) if m["role"] == "user"), ""
        )
        tools = "--functions" if case.tools else "--no-functions"
        done = subprocess.run(
            [sys.executable, *main, "--no-cache", tools, "--temperature", "0", prompt],
            env=env,
            cwd=home,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        ran = _ran(record)
    return _cli_outcome(done, ran)


def _ran(record: str) -> tuple[tuple[str, Any], ...]:
    if not os.path.exists(record):
        return ()
    with open(record, encoding="utf-8") as lines:
        return tuple((name, arguments) for name, arguments in map(json.loads, lines))


def _cli_outcome(
    done: subprocess.CompletedProcess[str], ran: tuple[tuple[str, Any], ...]
) -> testing.Outcome:
    """What the command line did: the calls its functions ran; the text it printed, when
    it ran none; its error (the traceback's last line: a crash when it is a low-level
    exception) when it failed, or its "not run" report."""
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        crash = "Traceback" in done.stderr and any(n in last.split(":")[0] for n in _LOW_LEVEL)
        return testing.Outcome(ran, error=last, crash=crash)
    reported = done.stdout if "not run" in done.stdout else None
    text = None if ran or reported else done.stdout.strip()
    return testing.Outcome(ran, text, reported)


DRIVER = testing.Driver(
    "sgpt",
    "shell-gpt",
    "openai",
    "sgpt",
    drive,
    "Handler.get_completion",
    live=live,
    live_options=False,
)
"""What ``streamfix doctor`` runs for shell_gpt (the ``DOCTOR`` of the ``sgpt`` patch)."""
