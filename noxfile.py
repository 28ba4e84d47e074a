"""nox sessions: lint, the core's tests, one session per framework x version, bench.

Uses the uv backend; every session prints the versions it runs on.

    nox                    # what CI runs (the default sessions)
    nox -s bench           # the side-by-side benchmark
    nox -l                 # every session
"""

from __future__ import annotations

import os

import nox

nox.options.default_venv_backend = "uv"
nox.options.sessions = ["lint", "tests"]  # + each shim session once its tests land
nox.options.error_on_missing_interpreters = False

PYTHON = os.environ.get("STREAMFIX_PYTHON", "3.11")
ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": "sk-streamfix-test"}


def _install(session: nox.Session, *groups: str, extras: str = "") -> None:
    """The one install helper: this project (editable) plus dependency groups."""
    args = [arg for group in groups for arg in ("--group", group)]
    session.install(*args, "-e", f".{extras}")
    session.run("python", "--version")


def _show_versions(session: nox.Session, *packages: str) -> None:
    code = (
        "import importlib.metadata as m, sys\n"
        "for p in sys.argv[1:]:\n"
        "    print(f'{p}=={m.version(p)}')\n"
    )
    session.run("python", "-c", code, *packages, env=ENV)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff on everything; mypy strict on the core."""
    _install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("mypy")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The core's tests (wire shapes, properties, bad input, bench smoke)."""
    _install(session, "test", "bench")
    _show_versions(session, "openai", "litellm", "hypothesis")
    env = {**ENV, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
    session.run("pytest", "tests/core", *session.posargs, env=env)


# google-adk: the newest 1.x, 2.8.0 and the newest release (issue 3).
ADK_VERSIONS = {"1.x": "google-adk<2", "2.8.0": "google-adk==2.8.0", "newest": "google-adk"}


@nox.session(python=PYTHON)
@nox.parametrize("adk", list(ADK_VERSIONS.values()), ids=list(ADK_VERSIONS))
def adk(session: nox.Session, adk: str) -> None:
    """The google-adk shim's tests on one google-adk version."""
    _install(session, "test", extras="[adk]")
    session.install(adk)
    _show_versions(session, "google-adk", "litellm")
    session.run("pytest", "tests/adk", *session.posargs, env=ENV)


# smolagents: the newest release and one older minor (issue 4).
SMOLAGENTS_VERSIONS = {"newest": "smolagents", "1.24": "smolagents==1.24.*"}


@nox.session(python=PYTHON)
@nox.parametrize(
    "smolagents", list(SMOLAGENTS_VERSIONS.values()), ids=list(SMOLAGENTS_VERSIONS)
)
def smolagents(session: nox.Session, smolagents: str) -> None:
    """The smolagents shim's tests on one smolagents version."""
    _install(session, "test", extras="[smolagents]")
    session.install(smolagents)
    _show_versions(session, "smolagents", "openai", "litellm")
    session.run("pytest", "tests/smolagents", *session.posargs, env=ENV)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """streamfix side by side with the libraries users would pick instead."""
    _install(session, "bench")
    _show_versions(session, "openai", "litellm", "smolagents", "langchain-core")
    session.run("python", "bench/bench_assemble.py", *session.posargs, env=ENV)
