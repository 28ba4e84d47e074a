"""What importing streamfix loads: the core only the standard library (no socket, threads,
email, server or framework), ``streamfix.testing`` and the pytest plugin no socket or
uvicorn before a server starts. Each check runs in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points

import pytest

HEAVY = ("socket", "selectors", "threading", "email", "uvicorn", "typer", "rich")
FRAMEWORKS = (
    "google",
    "smolagents",
    "sgpt",
    "litellm",
    "openai",
    "httpx",
    "pydantic",
    "streamfix_adk",
    "streamfix_smolagents",
    "streamfix_sgpt",
    "streamfix_litellm",
)

# Runs in the child: records, for each forbidden top-level module, the innermost streamfix
# module on the stack when it was first imported (who is to blame), then runs the code.
_PROBE = textwrap.dedent(
    """
    import json, sys

    WATCH = set(json.loads(sys.argv[1]))
    culprits = {}

    class Probe:
        def find_spec(self, name, path=None, target=None):
            top = name.partition(".")[0]
            if top in WATCH and top not in culprits:
                frame = sys._getframe(1)
                while frame is not None:
                    module = frame.f_globals.get("__name__", "")
                    if module == "streamfix" or module.startswith(("streamfix.", "streamfix_")):
                        break
                    frame = frame.f_back
                culprits[top] = module if frame is not None else "?"
            return None

    already = {m.partition(".")[0] for m in sys.modules}
    sys.meta_path.insert(0, Probe())
    exec(sys.argv[2])
    new = sorted(top for top in culprits if top not in already)
    print(json.dumps({top: culprits[top] for top in new}))
    """
)


def _loaded(code: str, watch: tuple[str, ...]) -> dict[str, str]:
    """The watched top-level modules ``code`` imports in a fresh interpreter (not loaded
    by interpreter start-up), each with the streamfix module that imported it."""
    env = {k: v for k, v in os.environ.items() if k != "STREAMFIX_AUTO"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(watch), code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_import_streamfix_loads_only_the_standard_library_it_needs() -> None:
    loaded = _loaded("import streamfix", HEAVY + FRAMEWORKS)
    assert loaded == {}


def test_the_registry_reads_entry_points_only_when_asked() -> None:
    code = textwrap.dedent(
        """
        import sys, streamfix
        assert "importlib.metadata" not in sys.modules
        assert "logging" not in sys.modules
        streamfix.installed()
        assert "importlib.metadata" not in sys.modules
        streamfix.uninstall()
        assert "importlib.metadata" not in sys.modules
        streamfix.install("no-such-patch")
        assert "importlib.metadata" in sys.modules
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "STREAMFIX_AUTO"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr


def test_testing_and_the_pytest_plugin_load_no_socket_before_a_server_starts() -> None:
    (plugin,) = [ep.value for ep in entry_points(group="pytest11") if ep.name == "streamfix"]
    code = textwrap.dedent(
        f"""
        import pytest  # already loaded wherever the plugin is
        import streamfix, sys
        tops = lambda: {{m.partition(".")[0] for m in sys.modules}}
        before = tops()
        import streamfix.testing, {plugin}
        from streamfix.testing import Scenario, load_capture, read_capture, scenarios
        assert len(scenarios()) > 0
        loaded = sorted({{"socket", "uvicorn"}} & (tops() - before))
        assert not loaded, loaded
        from streamfix.testing import ReplayServer
        assert "socket" not in sys.modules or "socket" in before
        assert "uvicorn" not in sys.modules
        with ReplayServer() as server:
            assert "uvicorn" in sys.modules and "socket" in sys.modules
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "STREAMFIX_AUTO"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr


def test_import_streamfix_proxy_loads_no_testing_module() -> None:
    """The proxy is a deployable server: importing it (and making its app) loads no
    module of the test kit (issue 35, point 2)."""
    code = textwrap.dedent(
        """
        import json, sys
        import streamfix.proxy
        streamfix.proxy.create_app("http://127.0.0.1:1")
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("streamfix."))))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "STREAMFIX_AUTO"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert "streamfix.proxy._wire" in loaded  # the probe sees the proxy's own modules
    assert [m for m in loaded if m.startswith("streamfix.testing")] == []


def _testing_modules() -> list[str]:
    import pkgutil

    import streamfix.testing

    return sorted(m.name for m in pkgutil.iter_modules(streamfix.testing.__path__))


@pytest.mark.parametrize("module", _testing_modules())
def test_each_module_of_testing_imports_first(module: str) -> None:
    """Each module of ``streamfix.testing`` imported on its own, first, in a fresh
    interpreter (no import circle needs another module loaded before it), loading no
    socket or uvicorn (tests/core/test_import_graph.py reads the graph itself). The
    pytest plugin imports pytest, which loads socket itself."""
    watch = () if module == "_pytest_plugin" else ("socket", "uvicorn")
    assert _loaded(f"import streamfix.testing.{module}", watch) == {}


@pytest.mark.parametrize(
    "name", ["SCENARIOS", "Scenario", "scenarios", "ReplayApp", "ReplayServer", "load_capture"]
)
def test_the_tools_moved_to_streamfix_testing_still_answer_with_a_warning(name: str) -> None:
    import streamfix.testing

    with pytest.warns(DeprecationWarning, match=f"streamfix.testing.{name}"):
        value = getattr(streamfix, name)
    assert value is getattr(streamfix.testing, name)
    assert name not in streamfix.__all__
    with pytest.raises(AttributeError):
        _ = streamfix.no_such_name
