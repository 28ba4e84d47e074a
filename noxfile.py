"""nox sessions: lint, the core's tests, one session per framework x version, bench.

Uses the uv backend; every session prints the versions it runs on.

    nox                    # what CI runs (the default sessions)
    nox -s bench           # the side-by-side benchmark
    nox -l                 # every session
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
nox.options.sessions = [  # what CI runs
    "lint",
    "tests",
    "adk",
    "sgpt",
    "sgpt_upstream",
    "smolagents",
    "smolagents_upstream",
    "e2e",
    "e2e_frameworks",
    "cli",
]
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


def _shim_tests(session: nox.Session, extra: str, framework: str, folder: str, *shown: str) -> None:
    """One shim's tests on one framework version: install it, print versions, run."""
    _install(session, "test", extras=f"[{extra}]")
    session.install(framework)
    _show_versions(session, *shown)
    session.run("pytest", folder, *session.posargs, env=ENV)


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
    _shim_tests(session, "adk", adk, "tests/adk", "google-adk", "litellm")


# smolagents: the newest release and one older minor (issue 4).
SMOLAGENTS_VERSIONS = {"newest": "smolagents", "1.24": "smolagents==1.24.*"}


@nox.session(python=PYTHON)
@nox.parametrize("smolagents", list(SMOLAGENTS_VERSIONS.values()), ids=list(SMOLAGENTS_VERSIONS))
def smolagents(session: nox.Session, smolagents: str) -> None:
    """The smolagents shim's tests on one smolagents version."""
    _shim_tests(session, "smolagents", smolagents, "tests/smolagents", "smolagents", "openai")


# smolagents' own model and agent tests, from the sdist of the tested version (issue 4).
SMOLAGENTS_UPSTREAM_TESTS = ["tests/test_models.py", "tests/test_agents.py", "tests/test_utils.py"]
# Upstream tests that pin what the patch changes, deselected (both runs), with why. None
# now: test_agglomerate_stream_deltas pins the provider's raw argument text, which the
# core keeps as sent.
SMOLAGENTS_UPSTREAM_DESELECT: set[str] = set()


@nox.session(python=PYTHON)
@nox.parametrize("smolagents", list(SMOLAGENTS_VERSIONS.values()), ids=list(SMOLAGENTS_VERSIONS))
def smolagents_upstream(session: nox.Session, smolagents: str) -> None:
    """smolagents' own tests (sdist fetched now), stock then patched: no new failures."""
    _install(session, "test", extras="[smolagents]")
    session.install(smolagents, "pip", "pytest-datadir", "ipython", "numpy")
    _show_versions(session, "smolagents", "openai", "litellm")
    here = "tests/smolagents_upstream"
    tmp = session.create_tmp()
    prepare = session.run("python", f"{here}/prepare_sdist.py", tmp, env=ENV, silent=True)
    sdist = str(prepare).strip().splitlines()[-1]
    env = {**ENV, "PYTHONPATH": os.path.abspath(here)}
    reports = {}
    deselect = [f"--deselect={t}" for t in sorted(SMOLAGENTS_UPSTREAM_DESELECT)]
    for run, stock, tb in (("stock", "1", "no"), ("patched", "", "short")):
        reports[run] = os.path.join(tmp, f"{run}.xml")
        session.run(
            "pytest",
            "-p",
            "streamfix_upstream_plugin",
            "-p",
            "no:cacheprovider",
            "-q",
            f"--tb={tb}",
            f"--rootdir={sdist}",
            "-c",
            f"{sdist}/pytest.ini",
            f"--junitxml={reports[run]}",
            *deselect,
            *(f"{sdist}/{t}" for t in SMOLAGENTS_UPSTREAM_TESTS),
            *session.posargs,
            env={**env, "STREAMFIX_STOCK": stock},
            success_codes=[0, 1],
        )
    session.run("python", f"{here}/compare_runs.py", reports["stock"], reports["patched"])


# shell_gpt: the 1.5 series (issue 5).
SGPT_VERSIONS = {"1.5": "shell-gpt~=1.5.1"}


@nox.session(python=PYTHON)
@nox.parametrize("sgpt", list(SGPT_VERSIONS.values()), ids=list(SGPT_VERSIONS))
def sgpt(session: nox.Session, sgpt: str) -> None:
    """The shell_gpt shim's tests."""
    _shim_tests(session, "sgpt", sgpt, "tests/shell_gpt", "shell-gpt", "openai", "litellm")


@nox.session(python=PYTHON)
@nox.parametrize("sgpt", list(SGPT_VERSIONS.values()), ids=list(SGPT_VERSIONS))
def sgpt_upstream(session: nox.Session, sgpt: str) -> None:
    """shell_gpt's own test suite, from its sdist fetched now, stock and then patched."""
    _install(session, "test", extras="[sgpt]")
    # pip fetches the sdist. shell-gpt 1.5's own tests expect the usage-error exit codes of
    # the typer and click of its time: with typer >= 0.13 seven of them fail on stock too.
    session.install(sgpt, "pip", "typer<0.13", "click<8.2")
    _show_versions(session, "shell-gpt")
    version = session.run(
        "python",
        "-c",
        "import importlib.metadata as m; print(m.version('shell-gpt'))",
        silent=True,
    ).strip()
    tmp = session.create_tmp()
    session.run(
        "python",
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--no-binary",
        ":all:",
        "--dest",
        tmp,
        f"shell-gpt=={version}",
    )
    session.chdir(tmp)
    session.run("tar", "xzf", f"shell_gpt-{version}.tar.gz", external=True)
    session.chdir(f"shell_gpt-{version}")
    plugin_dir = str(Path(__file__).parent / "tests" / "shell_gpt_upstream")
    env = {**ENV, "HOME": session.create_tmp(), "PYTHONPATH": plugin_dir}
    session.run("pytest", "-q", "-p", "no:cacheprovider", "tests", env=env)  # stock
    session.run(
        "pytest", "-q", "-p", "no:cacheprovider", "-p", "streamfix_activate", "tests", env=env
    )


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """streamfix side by side with the libraries users would pick instead."""
    _install(session, "bench")
    _show_versions(session, "openai", "litellm", "smolagents", "langchain-core")
    session.run("python", "bench/bench_assemble.py", *session.posargs, env=ENV)


@nox.session(python=PYTHON)
def e2e(session: nox.Session) -> None:
    """End to end over real HTTP: the replay server, the openai SDK, litellm (issue 6)."""
    _install(session, "test", extras="[litellm,serve]")
    _show_versions(session, "openai", "litellm", "uvicorn", "typer")
    session.run("pytest", "tests/e2e", *session.posargs, env=ENV)


@nox.session(python=PYTHON)
def e2e_frameworks(session: nox.Session) -> None:
    """End to end over real HTTP: ADK, smolagents and the sgpt CLI against the replay
    server, stock and patched (issue 6). One environment: shell-gpt's openai<3 pin
    resolves together with the others (uv picks openai 2.x). The ADK tests run first on
    the older google-adk releases of ADK_VERSIONS (their stock outcome differs), then
    everything on the newest."""
    _install(session, "test", extras="[adk,smolagents,sgpt,litellm,serve]")
    for label, spec in ADK_VERSIONS.items():
        if label == "newest":
            continue
        session.install(spec)
        _show_versions(session, "google-adk")
        session.run("pytest", "tests/e2e_frameworks/test_adk.py", *session.posargs, env=ENV)
    session.install("--upgrade-package", "google-adk", ADK_VERSIONS["newest"])
    _show_versions(session, "google-adk", "smolagents", "shell-gpt", "openai", "litellm")
    session.run("pytest", "tests/e2e_frameworks", *session.posargs, env=ENV)


@nox.session(python=PYTHON)
def cli(session: nox.Session) -> None:
    """The command line (doctor, replay, record, run) and the pytest plugin (issue 7),
    with every framework installed together."""
    _install(session, "test", extras="[adk,smolagents,sgpt,litellm,serve]")
    _show_versions(session, "google-adk", "smolagents", "shell-gpt", "litellm", "openai")
    session.run("pytest", "tests/cli", *session.posargs, env=ENV)
