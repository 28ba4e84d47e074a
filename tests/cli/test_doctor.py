"""``streamfix doctor``: the corpus through every installed framework, stock and patched."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import subprocess
import sys

import pytest
from support.cli import cli

import streamfix
import streamfix.testing
from streamfix.cli import DRIVERS, Report, run_doctor
from streamfix.testing import Outcome, judge


@pytest.fixture(scope="module")
def report() -> Report:
    return run_doctor()


def test_every_patched_cell_passes(report: Report) -> None:
    failing = [c.to_dict() for c in report.cells if c.patched != "ok"]
    assert failing == []
    assert report.ok


def test_the_matrix_covers_every_installed_framework(report: Report) -> None:
    installed = [n for n, f in DRIVERS.items() if f.available()]
    assert installed, "the cli session installs the frameworks"
    for name, framework in DRIVERS.items():
        status = report.frameworks[name]["status"]
        assert status == ("patched" if framework.available() else "not installed")
        cells = [*report.cells, *report.dialect_cells]
        scenarios = {c.scenario for c in cells if c.framework == name}
        if framework.available():
            assert scenarios == set(streamfix.testing.scenarios(framework.dialect)) | set(
                streamfix.testing.dialect_scenarios(framework.dialect)
            )


def test_stock_loses_shapes_the_patch_recovers(report: Report) -> None:
    """Stock loses shapes on every installed framework version (the shapes differ by
    version: newer releases fixed some upstream); the patch recovers each of them."""
    lost = [c for c in report.cells if c.stock == "lost"]
    assert lost
    assert all(c.patched == "ok" and c.stock_detail for c in lost)
    if DRIVERS["smolagents"].available():  # no smolagents release fixes B2
        assert ("smolagents", "b2-same-index") in {(c.framework, c.scenario) for c in lost}


def test_json_parses_and_exit_status_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "doctor", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["ok"] is True
    assert {"framework", "scenario", "shape", "stock", "patched"} <= set(data["cells"][0])
    assert set(data["frameworks"]) == set(DRIVERS)


def test_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "doctor")
    assert code == 0
    assert "stock \u2192 patched" in out
    assert "b2-same-index" in out
    assert "0 failing patched" in out


def _matrix_lines(out: str) -> list[str]:
    """The matrix of the doctor's output: its lines before the first lost cell's."""
    lines = out.splitlines()
    end = next(n for n, line in enumerate(lines) if re.match(r"  \S+ \S+: stock", line))
    return lines[:end]


def test_piped_the_matrix_is_one_line_per_cell_never_cut(
    report: Report, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not on a terminal (a file, ``| less``, CI), each framework is a line and each of its
    cells a line under it: scenario, shape, stock \u2192 patched, whole, at any width."""
    monkeypatch.setattr("streamfix.cli._main.run_doctor", lambda frameworks: report)
    code, out, _ = cli(capsys, "doctor")
    assert code == 0
    matrix = _matrix_lines(out)
    assert matrix[0] == "streamfix doctor: stock \u2192 patched"
    assert all(len(line) <= 60 and "\u2026" not in line for line in matrix)
    lines = out.splitlines()  # the dialect columns (J-M) head a second table, after
    for name, info in report.frameworks.items():  # "name version", or its status after
        heading = f"{name} {info['version']}" if info["version"] else name
        assert heading in lines or f"{heading}: {info['status']}" in lines
    mark = {"ok": "ok", "lost": "LOST"}
    for cell in report.cells:
        line = f"{cell.scenario} {cell.shape} {mark[cell.stock]}\u2192{mark[cell.patched]}"
        assert line in [" ".join(m.split()) for m in matrix]
    assert "0 failing patched" in out


def _table_width(report: Report) -> int:
    """The width the doctor's table needs (one column per framework, installed or not)."""
    from rich.console import Console
    from rich.measure import Measurement

    from streamfix.cli._main import _doctor_table

    console = Console(width=1_000_000)
    return int(Measurement.get(console, console.options, _doctor_table(report)).maximum)


@pytest.mark.parametrize(("wide", "table"), [(True, True), (False, False)], ids=["wide", "60"])
def test_a_terminal_gets_the_table_only_where_it_fits(
    wide: bool,
    table: bool,
    report: Report,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A terminal as wide as the table gets it (every framework a column: the width grows
    with them); a 60-column one gets the lines."""
    columns = _table_width(report) if wide else 60
    monkeypatch.setattr("streamfix.cli._main.run_doctor", lambda frameworks: report)
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich takes stdout for a terminal
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = cli(capsys, "doctor")
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert code == 0
    assert ("\u2503" in plain) is table  # the table's border
    assert "\u2026" not in "\n".join(_matrix_lines(plain))
    assert all(len(line) <= columns for line in _matrix_lines(plain))


def test_the_frameworks_log_nothing_during_the_run(caplog: pytest.LogCaptureFixture) -> None:
    """google-adk logs "Discarding tool call 'get_weather' with unparseable arguments"
    for the broken streams it is fed; the doctor keeps such lines out of its output (its
    matrix has them, judged) and puts every logger's level back afterwards."""
    logger = logging.getLogger("google_adk")
    logger.setLevel(logging.INFO)
    try:
        with caplog.at_level(logging.WARNING):  # what Python prints on stderr by default
            run_doctor(["adk", "litellm"])
        assert [r.getMessage() for r in caplog.records] == []
        assert logger.level == logging.INFO
        assert logging.getLogger("LiteLLM").level == logging.NOTSET
    finally:
        logger.setLevel(logging.NOTSET)


def test_a_failing_patched_cell_gives_exit_status_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A driver whose framework loses every call, stock and patched: non-zero exit."""
    name = next(n for n, f in DRIVERS.items() if f.available())
    broken = dataclasses.replace(DRIVERS[name], drive=lambda _s: Outcome())
    monkeypatch.setitem(DRIVERS, name, broken)
    code, out, _ = cli(capsys, "doctor", "--json", "--framework", name)
    data = json.loads(out)
    assert code == 1
    assert data["ok"] is False
    assert any(c["patched"] == "lost" for c in data["cells"])
    code, out, _ = cli(capsys, "doctor", "--framework", name)
    assert code == 1
    assert "failing patched" in out


def test_a_framework_not_installed_is_a_column_not_an_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = dataclasses.replace(DRIVERS["sgpt"], module="no_such_framework_xyz")
    monkeypatch.setitem(DRIVERS, "sgpt", missing)
    code, out, _ = cli(capsys, "doctor", "--json", "--framework", "sgpt")
    data = json.loads(out)
    assert code == 0
    assert data["frameworks"]["sgpt"]["status"] == "not installed"
    assert data["cells"] == []


def test_unknown_framework_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "doctor", "--framework", "nope")
    assert code == 2
    assert "unknown framework nope" in err


def test_patches_active_before_are_put_back() -> None:
    name = next(n for n, f in DRIVERS.items() if f.available())
    streamfix.install(name)
    try:
        run_doctor([name])
        assert name in streamfix.installed()
    finally:
        streamfix.uninstall(name)
    run_doctor([name])
    assert name not in streamfix.installed()


@pytest.mark.parametrize(
    ("outcome", "ok"),
    [
        (Outcome(calls=(("get_weather", {"city": "Paris"}),), text=""), False),
        (Outcome(error="TruncatedToolCallError: truncated"), True),
        (Outcome(error="JSONDecodeError: x", crash=True), False),
        (
            Outcome(
                calls=(("get_weather", {"city": "Paris"}), ("get_time", '{"zone": "Eur')), error="x"
            ),
            False,
        ),
    ],
)
def test_judge_truncated(outcome: Outcome, ok: bool) -> None:
    assert judge(streamfix.testing.scenarios()["e4-truncated"], outcome)[0] is ok


def test_drivers_come_from_the_patch_entry_points_each_imported_when_run() -> None:
    """Each patch names its drivers (``DOCTORS``: litellm has two columns, its Ollama and
    its OpenAI-compatible path, both installing the ``litellm`` patch; smolagents two,
    ``OpenAIModel`` and ``LiteLLMModel``, both installing ``smolagents``); listing them
    imports no driver and no framework, running one imports that framework's driver only;
    the frameworks reached through the openai wire (langchain, pydantic-ai, openai-agents)
    are columns of the ``openai`` patch (so are openai-agents' and strands' native paths
    for the other dialects, which the wire leaves as shipped; pydantic-ai's are the
    ``pydantic_ai`` patch's), openai-agents' ``LitellmModel`` a column of the
    ``litellm`` patch."""
    code = (
        "import sys\n"
        "from streamfix.cli import DRIVERS\n"
        "def loaded(): return sorted(m for m in sys.modules if m.endswith('._doctor')"
        " and m.startswith('streamfix_') or m.split('.')[0] in ('google', 'smolagents', 'sgpt'))\n"
        "names = ['adk', 'adk-gemini', 'smolagents', 'smolagents-litellm', 'sgpt', 'litellm',"
        " 'litellm-openai', 'litellm-anthropic', 'litellm-gemini', 'litellm-responses',"
        " 'litellm-bedrock', 'agno-litellm', 'openai-agents-litellm', 'strands-litellm',"
        " 'openai', 'langchain', 'pydantic-ai', 'openai-agents', 'strands',"
        " 'openai-agents-responses', 'strands-bedrock', 'agno', 'autogen',"
        " 'crewai', 'dspy', 'haystack', 'llama_index', 'pydantic_ai', 'pydantic-ai-anthropic',"
        " 'pydantic-ai-responses']\n"
        "assert list(DRIVERS) == names, list(DRIVERS)\n"
        "assert loaded() == [], loaded()\n"
        "assert DRIVERS['litellm'].name == 'litellm'\n"
        "assert loaded() == ['streamfix_litellm._doctor'], loaded()\n"
        "assert DRIVERS['litellm-openai'].dialect == 'openai'\n"
        "patches = {name: DRIVERS[name].name for name in DRIVERS}\n"
        "two = {'adk-gemini': 'adk', 'litellm-openai': 'litellm',"
        " 'smolagents-litellm': 'smolagents', 'langchain': 'openai', 'pydantic-ai': 'openai',"
        " 'openai-agents': 'openai',"
        " 'agno-litellm': 'litellm', 'openai-agents-litellm': 'litellm',"
        " 'strands': 'openai', 'strands-litellm': 'litellm', 'litellm-anthropic': 'litellm',"
        " 'litellm-gemini': 'litellm', 'litellm-responses': 'litellm',"
        " 'litellm-bedrock': 'litellm',"
        " 'pydantic-ai-anthropic': 'pydantic_ai', 'pydantic-ai-responses': 'pydantic_ai',"
        " 'openai-agents-responses': 'openai', 'strands-bedrock': 'openai'}\n"
        "assert patches == {**{n: n for n in names}, **two}, patches\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


# --- the repaired wire: a repair check per scenario ----------------------------------------


def test_every_scenario_repairs(report: Report) -> None:
    assert set(report.repairs) == set(streamfix.testing.SCENARIOS)
    assert {name: why for name, why in report.repairs.items() if why} == {}


def test_the_repair_checks_are_in_the_json_and_the_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    name = next(n for n, f in DRIVERS.items() if f.available())
    code, out, _ = cli(capsys, "doctor", "--json", "--framework", name)
    data = json.loads(out)
    assert code == 0
    assert data["repairs"]["b3-same-index"] == {"ok": True, "why": None}
    code, out, _ = cli(capsys, "doctor", "--framework", name)
    total = len(streamfix.testing.SCENARIOS)
    assert f"{total} of {total} scenarios canonical" in out


def test_a_failing_repair_gives_exit_status_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamfix.cli._doctor as doctor_module

    def broken(chunks: object, tools: object = None, shape: str = "") -> str | None:
        return "not canonical: a test" if shape == "B3" else None

    monkeypatch.setattr(doctor_module, "repair_check", broken)
    name = next(n for n, f in DRIVERS.items() if f.available())
    code, out, _ = cli(capsys, "doctor", "--framework", name)
    assert code == 1
    assert "repair b3-same-index: not canonical: a test" in out


@pytest.mark.parametrize("name", sorted(streamfix.testing.SCENARIOS))
def test_repair_check_judges_a_broken_repair(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """repair_check is not vacuous: a repair that drops the last tool-call chunk (or
    passes the stream on untouched where it needed repair) is caught."""
    scenario = streamfix.testing.SCENARIOS[name]
    tools = sorted({c["name"] for c in scenario.calls})
    chunks = list(scenario.chunks)
    assert streamfix.testing.repair_check(chunks, tools, scenario.shape) is None
    import streamfix.testing._canonical as canonical

    monkeypatch.setattr(canonical, "repair", lambda c, t=None: iter(c))
    untouched = streamfix.testing.repair_check(chunks, tools, scenario.shape)
    needs_repair = (
        bool(streamfix.testing.canonical_problems(chunks))
        or scenario.shape == "I3"
        or scenario.error is not None  # the repaired stream must end in the error
        or scenario.truncated
    )
    assert (untouched is not None) == needs_repair, untouched


def test_a_column_of_another_dialect_runs_on_its_dialect_corpus_apart(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A driver speaking a J-M dialect runs on that dialect's scenarios of the dialect
    corpus; its cells are ``dialect_cells`` (apart in ``--json`` and in a table of their
    own after the chat table's summary), never among the chat corpus's ``cells``."""
    seen: list[str] = []

    def drive(scenario: streamfix.testing.Scenario) -> Outcome:
        seen.append(scenario.name)
        calls = tuple((c["name"], c["arguments"]) for c in scenario.calls)
        cut = "the call was cut" if scenario.truncated else None
        return Outcome(calls, scenario.text, error=scenario.error or cut)

    stand_in = streamfix.testing.Driver(
        "openai", "openai", "bedrock", "json", drive, "a stand-in on Bedrock"
    )
    monkeypatch.setitem(DRIVERS, "stand-in-bedrock", stand_in)
    report = run_doctor(["stand-in-bedrock"])
    names = list(streamfix.testing.dialect_scenarios("bedrock"))
    assert seen == names + names  # stock, then patched
    assert report.cells == []
    assert [c.scenario for c in report.dialect_cells] == names
    code, out, _ = cli(capsys, "doctor", "--json", "--framework", "stand-in-bedrock")
    data = json.loads(out)
    assert code == 0
    assert data["cells"] == [] and len(data["dialect_cells"]) == len(names)
    code, out, _ = cli(capsys, "doctor", "--framework", "stand-in-bedrock")
    assert code == 0
    assert "the other dialects (J-M)" in out
    assert f"{len(names)} cells of the other dialects:" in out
    assert "0 cells: 0 lost stock" in out
