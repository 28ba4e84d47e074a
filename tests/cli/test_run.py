"""``streamfix run -- python script.py`` and ``STREAMFIX_AUTO=1``: a smolagents script,
unchanged, against the replay server: stock it loses a call, under streamfix it does not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from streamfix.testing import ReplayServer

BIN = Path(sys.executable).parent
SCRIPT = textwrap.dedent(
    """
    import json, sys
    import streamfix
    from smolagents.models import ChatMessage, MessageRole, OpenAIModel, agglomerate_stream_deltas

    model = OpenAIModel(model_id="b2-same-index", api_base=sys.argv[1], api_key="sk-test")
    user = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
    message = agglomerate_stream_deltas(list(model.generate_stream([user])))
    print(json.dumps({"patched": streamfix.installed(),
                      "calls": [c.function.name for c in message.tool_calls]}))
    """
)
BOTH = ["get_weather", "get_time"]


@pytest.fixture
def script(tmp_path: Path) -> Path:
    pytest.importorskip("smolagents")
    path = tmp_path / "app.py"
    path.write_text(SCRIPT)
    return path


def _run(argv: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "STREAMFIX_AUTO"}
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=120, env={**environ, **env}, check=False
    )


def _result(done: subprocess.CompletedProcess[str]) -> dict:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_stock_loses_a_call(script: Path, streamfix_server: ReplayServer) -> None:
    out = _result(_run([sys.executable, str(script), streamfix_server.openai_base_url]))
    assert out == {"patched": [], "calls": ["get_time"]}


def test_streamfix_run_patches_without_code_change(
    script: Path, streamfix_server: ReplayServer
) -> None:
    done = _run(
        [
            str(BIN / "streamfix"),
            "run",
            "--",
            sys.executable,
            str(script),
            streamfix_server.openai_base_url,
        ]
    )
    out = _result(done)
    assert "smolagents" in out["patched"]
    assert out["calls"] == BOTH


def test_streamfix_auto_env_var(script: Path, streamfix_server: ReplayServer) -> None:
    pth = Path(sysconfig.get_paths()["purelib"]) / "adk_streamfix_auto.pth"
    assert pth.exists(), "the wheel installs adk_streamfix_auto.pth"
    out = _result(
        _run([sys.executable, str(script), streamfix_server.openai_base_url], STREAMFIX_AUTO="1")
    )
    assert out["calls"] == BOTH
    off = _result(
        _run([sys.executable, str(script), streamfix_server.openai_base_url], STREAMFIX_AUTO="0")
    )
    assert off == {"patched": [], "calls": ["get_time"]}


def test_an_existing_sitecustomize_still_runs(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import os\nos.environ['THEIRS'] = 'ran'\n")
    code = (
        "import os, litellm, streamfix;"
        " print(os.environ.get('THEIRS'), 'litellm' in streamfix.installed())"
    )
    done = _run(
        [str(BIN / "streamfix"), "run", "--", sys.executable, "-c", code], PYTHONPATH=str(site)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ran", "True"]


FRAMEWORKS = ("google.adk", "smolagents", "sgpt", "litellm")
IMPORTED = f"import sys; print([m for m in {FRAMEWORKS!r} if m in sys.modules])"


def test_start_up_imports_no_framework() -> None:
    """Every framework is patched when the program imports it, not at interpreter start
    (importing them all there took about 9 s with google-adk installed)."""
    done = _run([sys.executable, "-c", IMPORTED], STREAMFIX_AUTO="1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    done = _run([str(BIN / "streamfix"), "run", "--", sys.executable, "-c", IMPORTED])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("statement", "patched"),
    [
        # litellm and shell_gpt import openai: its stream helper is patched with them.
        ("from google.adk.models.lite_llm import LiteLlm", ["adk", "litellm", "openai"]),
        ("import smolagents", ["smolagents"]),
        ("from sgpt.handlers.handler import Handler", ["openai", "sgpt"]),
        ("import litellm", ["litellm", "openai"]),
        ("import openai", ["openai"]),
    ],
)
def test_each_framework_is_patched_when_imported(statement: str, patched: list[str]) -> None:
    """What each shim says is patched now (``streamfix_<fw>.installed()``); the registry's
    ``streamfix.installed()`` lists the patches waiting for their framework's import too."""
    code = (
        f"{statement}\nimport importlib, streamfix\n"
        f"print([n for n in {SHIMS!r} if importlib.import_module('streamfix_' + n).installed()])\n"
        "print(streamfix.installed())"
    )
    done = _run([sys.executable, "-c", code], STREAMFIX_AUTO="1")
    assert done.returncode == 0, done.stderr
    now, in_effect = done.stdout.strip().splitlines()[-2:]
    assert now == repr(patched)
    assert in_effect == repr(list(SHIMS))


SHIMS = ("adk", "litellm", "openai", "sgpt", "smolagents")  # streamfix_<name>, sorted


def test_exit_status_is_the_programs(tmp_path: Path) -> None:
    done = _run([str(BIN / "streamfix"), "run", "--", sys.executable, "-c", "raise SystemExit(7)"])
    assert done.returncode == 7


def test_nothing_to_run_or_unknown_command() -> None:
    assert _run([str(BIN / "streamfix"), "run"]).returncode == 2
    done = _run([str(BIN / "streamfix"), "run", "--", "no-such-program-xyz"])
    assert done.returncode == 127
    assert "command not found" in done.stderr
