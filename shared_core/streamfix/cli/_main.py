"""The ``streamfix`` command line: ``doctor``, ``replay``, ``record``, ``run``, ``serve``.

typer, rich and uvicorn are the optional ``serve`` extra, imported when a command runs;
the frameworks are imported by the doctor's drivers only, each when its framework runs.
This module parses and renders; the work is done in the modules next to it.
"""

from __future__ import annotations

import sys
from typing import Any

from ..testing import SCENARIOS, CaptureError, ReplayServer
from ._doctor import DRIVERS, Report, outcome_dict, run_doctor, stock_and_patched
from ._replay import replay_capture

__all__ = ["doctor", "main", "replay", "serve"]


def serve(host: str = "127.0.0.1", port: int = 0, replay: str | None = None) -> None:
    """Serve the shape corpus (or replay a capture) until Ctrl-C; print the URL."""
    server = ReplayServer(host, port, capture=replay).start()
    print(f"streamfix serving on {server.url}", flush=True)
    print(f"  OpenAI: {server.openai_base_url}   Ollama: {server.ollama_base_url}", flush=True)
    try:
        server.wait()
    except KeyboardInterrupt:
        server.stop()


def _console() -> Any:
    from rich.console import Console  # noqa: PLC0415 (optional extra)

    return Console(highlight=False, soft_wrap=True)


_MARK = {"ok": "[green]ok[/]", "lost": "[bold red]LOST[/]"}


def _doctor_table(report: Report) -> Any:
    from rich.table import Table  # noqa: PLC0415 (optional extra)

    names = list(report.frameworks)
    table = Table(title="streamfix doctor: stock \u2192 patched", title_justify="left")
    table.add_column("scenario", no_wrap=True)
    table.add_column("shape")
    for name in names:
        info = report.frameworks[name]
        table.add_column(
            f"{name}\n{info.get('version') or 'not installed'}", justify="center", no_wrap=True
        )
    cells = {(c.framework, c.scenario): c for c in report.cells}
    for scenario in SCENARIOS.values():
        row = [scenario.name, scenario.shape]
        for name in names:
            status = report.frameworks[name]["status"]
            cell = cells.get((name, scenario.name))
            if status == "not installed":
                row.append("[dim]absent[/]")
            elif cell is None:
                row.append("[dim]\u2014[/]")
            else:
                row.append(f"{_MARK[cell.stock]}\u2192{_MARK[cell.patched]}")
        table.add_row(*row)
    return table


def doctor(frameworks: list[str] | None = None, as_json: bool = False) -> int:
    """Run the corpus through every installed framework, stock and patched; print the
    matrix. The exit status: 0 when every patched cell passes, 1 otherwise."""
    report = run_doctor(frameworks or None)
    if as_json:
        print(report.to_json())
        return 0 if report.ok else 1
    console = _console()
    console.print(_doctor_table(report))
    lost = [c for c in report.cells if c.stock == "lost" or c.patched == "lost"]
    for cell in lost:
        line = f"  {cell.framework} {cell.scenario}: stock {cell.stock_detail or 'ok'}"
        if cell.patched == "lost":
            line += f"; [bold red]patched {cell.patched_detail}[/]"
        console.print(line, markup=True, soft_wrap=True)
    recovered = sum(c.stock == "lost" and c.patched == "ok" for c in report.cells)
    failed = sum(c.patched == "lost" for c in report.cells)
    console.print(
        f"{len(report.cells)} cells: {sum(c.stock == 'lost' for c in report.cells)} lost"
        f" stock, {recovered} recovered by the patch, {failed} failing patched."
    )
    return 0 if report.ok else 1


def replay(path: str, framework: str | None = None, as_json: bool = False) -> int:
    """Assemble a capture; print calls, text and diagnostics (and, with ``framework``,
    what that framework gives stock and patched). Raises CaptureError on a bad file."""
    import json  # noqa: PLC0415

    result = replay_capture(path)
    if framework is not None:
        driver = DRIVERS[framework]
        if not driver.available():
            result.frameworks[framework] = {"status": "not installed"}
        elif driver.dialect != result.capture.dialect:
            result.frameworks[framework] = {
                "status": f"not applicable: {framework} reads {driver.dialect} streams,"
                f" this capture is {result.capture.dialect}"
            }
        else:
            stock, patched = stock_and_patched(framework, result.capture.scenario())
            result.frameworks[framework] = {
                "status": "patched" if patched is not None else "patch failed",
                "stock": outcome_dict(stock),
                "patched": outcome_dict(patched),
            }
    data = result.to_dict()
    if as_json:
        print(json.dumps(data, indent=2))
        return 0
    console = _console()
    console.print(f"[bold]{path}[/]: {data['format']} ({data['dialect']}), {data['chunks']} chunks")
    _print_message(console, data)
    for name, info in data.get("frameworks", {}).items():
        console.print(f"[bold]{name}[/]: {info['status']}")
        for run in ("stock", "patched"):
            if info.get(run) is not None:
                console.print(f"  {run}:")
                _print_outcome(console, info[run])
    return 0


def _print_message(console: Any, data: dict[str, Any]) -> None:
    import json  # noqa: PLC0415

    console.print(f"text: {data['text']!r}", markup=False)
    if data["reasoning"]:
        console.print(f"reasoning: {data['reasoning']!r}", markup=False)
    console.print(f"finish_reason: {data['finish_reason']}", markup=False)
    for number, call in enumerate(data["calls"]):
        console.print(
            f"call {number}: {call['name']}({json.dumps(call['arguments'])})  id={call['id']}",
            markup=False,
        )
        if call["thought_signature"]:
            console.print(f"  thought_signature: {call['thought_signature']}", markup=False)
    for diagnostic in data["diagnostics"]:
        console.print(f"repaired: {diagnostic['code']}: {diagnostic['detail']}", markup=False)
    if data["error"]:
        console.print(f"[red]error[/]: {data['error']['type']}: {data['error']['text']}")


def _print_outcome(console: Any, outcome: dict[str, Any]) -> None:
    import json  # noqa: PLC0415

    for call in outcome["calls"]:
        console.print(f"    call {call['name']}({json.dumps(call['arguments'])})", markup=False)
    if outcome["text"]:
        console.print(f"    text: {outcome['text']!r}", markup=False)
    if outcome["error"]:
        kind = "crash" if outcome["crash"] else "error"
        console.print(f"    {kind}: {outcome['error']}", markup=False)
    if not (outcome["calls"] or outcome["text"] or outcome["error"]):
        console.print("    nothing", markup=False)


def _add_inspection_commands(app: Any, typer: Any) -> None:
    """``doctor`` and ``replay``."""

    def doctor_command(
        framework: list[str] = typer.Option(  # noqa: B008 (typer's idiom)
            [],
            "--framework",
            "-f",
            help="Only these frameworks (adk, smolagents, sgpt, litellm, openai); default: all.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the matrix as JSON."),
    ) -> None:
        """The public shape corpus through every installed framework, stock and patched.

        Exit status 0 when every patched cell passes, 1 otherwise. No network, no keys.
        """
        unknown = sorted(set(framework) - set(DRIVERS))
        if unknown:
            raise typer.BadParameter(
                f"unknown framework {', '.join(unknown)}; known: {', '.join(DRIVERS)}",
                param_hint="--framework",
            )
        raise typer.Exit(doctor(list(framework), as_json))

    def replay_command(
        file: str = typer.Argument(..., help="A capture: JSONL chunks, SSE text or Ollama NDJSON."),
        framework: str | None = typer.Option(
            None,
            "--framework",
            "-f",
            help="Also show what this framework gives stock and patched (adk, smolagents,"
            " sgpt, litellm, openai).",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Assemble a captured stream: calls, text, and what was repaired and why."""
        if framework is not None and framework not in DRIVERS:
            raise typer.BadParameter(
                f"unknown framework {framework!r}; known: {', '.join(DRIVERS)}",
                param_hint="--framework",
            )
        try:
            code = replay(file, framework, as_json)
        except CaptureError as error:
            raise typer.BadParameter(str(error), param_hint="FILE") from None
        raise typer.Exit(code)

    app.command("doctor")(doctor_command)
    app.command("replay")(replay_command)


def _add_process_commands(app: Any, typer: Any) -> None:
    """``run`` and ``record``."""

    def run_command(
        command: list[str] = typer.Argument(  # noqa: B008 (typer's idiom)
            ..., help="The command, after --: streamfix run -- python app.py ..."
        ),
    ) -> None:
        """Run a program with every installed patch active, no change to its code."""
        from ._run import run as run_program  # noqa: PLC0415

        raise typer.Exit(run_program(list(command)))

    def record_command(
        upstream: str = typer.Option(
            ..., help="The endpoint's root, e.g. http://127.0.0.1:11434 or https://api.openai.com."
        ),
        out: str = typer.Option("captures", help="Folder for the JSONL captures."),
        host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
        port: int = typer.Option(0, help="Port (0: a free one)."),
    ) -> None:
        """Loopback proxy: passes responses through unchanged, saves each streamed one."""
        from ._record import RecordServer  # noqa: PLC0415

        server = RecordServer(upstream, out, host, port).start()
        print(f"streamfix recording on {server.url} -> {upstream}; captures in {out}", flush=True)
        try:
            server.wait()
        except KeyboardInterrupt:
            server.stop()

    app.command("run", context_settings={"allow_interspersed_args": False})(run_command)
    app.command("record")(record_command)


def _app() -> Any:
    import typer  # type: ignore[import-not-found, unused-ignore]  # noqa: PLC0415 (optional extra)

    app = typer.Typer(
        no_args_is_help=True,
        add_completion=False,
        help="streamfix: streamed tool calls, assembled correctly.",
    )

    def serve_command(
        host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
        port: int = typer.Option(0, help="Port (0: a free one)."),
        replay: str | None = typer.Option(
            None,
            help="Replay this capture (JSONL chunks, SSE text or Ollama NDJSON) for every model.",
        ),
    ) -> None:
        """Loopback server replaying wire shapes (OpenAI SSE and Ollama NDJSON)."""
        try:
            serve(host, port, replay)
        except CaptureError as error:
            raise typer.BadParameter(str(error), param_hint="--replay") from None

    def callback() -> None:
        """streamfix command line."""

    app.callback()(callback)
    _add_inspection_commands(app, typer)
    _add_process_commands(app, typer)
    app.command("serve")(serve_command)
    return app


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``streamfix`` script."""
    try:
        app = _app()
    except ImportError:
        print(
            "the streamfix command needs the serve extra: pip install 'adk-streamfix[serve]'",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    app(args=argv, prog_name="streamfix")
