"""The ``streamfix`` command line: ``doctor``, ``replay``, ``run``, ``record``, ``proxy``,
``serve``.

typer, rich and uvicorn are the optional ``serve`` extra, imported when a command runs;
the frameworks are imported by the doctor's drivers only, each when its framework runs.
This module parses and renders; the work is done in the modules next to it.
"""

from __future__ import annotations

import sys
from typing import Any, Literal

from .._version import __version__
from ..testing import (
    DIALECT_SCENARIOS,
    SCENARIOS,
    CaptureError,
    LiveError,
    LiveResult,
    Outcome,
    ReplayServer,
)
from ._doctor import (
    DRIVERS,
    OTHER_DIALECTS,
    Cell,
    Report,
    outcome_dict,
    run_doctor,
    stock_and_patched,
)
from ._live import LiveReport, live_frameworks, run_live, server_loss_lines
from ._output import console as _console
from ._output import pipe_safe, print_matrix, whole_characters
from ._quiet import quiet_frameworks
from ._replay import replay_capture

__all__ = ["doctor", "doctor_live", "main", "proxy", "replay", "serve"]


def serve(host: str = "127.0.0.1", port: int = 0, replay: str | None = None) -> None:
    """Serve the shape corpus (or replay a capture) until Ctrl-C; print the URL."""
    server = ReplayServer(host, port, capture=replay).start()
    print(f"streamfix serving on {server.url}", flush=True)
    print(f"  OpenAI: {server.openai_base_url}   Ollama: {server.ollama_base_url}", flush=True)
    try:
        server.wait()
    except KeyboardInterrupt:
        server.stop()


_MARK = {"ok": "[green]ok[/]", "lost": "[bold red]LOST[/]"}


def escape(text: str) -> str:
    """``text`` shown as it is in rich markup."""
    from rich.markup import escape as rich_escape  # noqa: PLC0415 (optional extra)

    return str(rich_escape(text))


def _columns(report: Report, dialects: bool) -> list[str]:
    """The chat corpus's columns, or (``dialects``) those of the other dialects (J-M)."""
    return [
        name
        for name, info in report.frameworks.items()
        if (info.get("dialect") in OTHER_DIALECTS) == dialects
    ]


def _doctor_table(report: Report, dialects: bool = False) -> Any:
    from rich.table import Table  # noqa: PLC0415 (optional extra)

    names = _columns(report, dialects)
    title = "streamfix doctor: stock \u2192 patched"
    if dialects:
        title += ", the other dialects (J-M)"
    table = Table(title=title, title_justify="left")
    table.add_column("scenario", no_wrap=True)
    table.add_column("shape")
    for name in names:
        info = report.frameworks[name]
        table.add_column(
            f"{name}\n{info.get('version') or 'not installed'}", justify="center", no_wrap=True
        )
    cells = {(c.framework, c.scenario): c for c in [*report.cells, *report.dialect_cells]}
    for scenario in (DIALECT_SCENARIOS if dialects else SCENARIOS).values():
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


def _heading(name: str, version: str | None, status: str, shown: str) -> str:
    """A framework's line in the plain layout: its name, version, and status unless it
    is ``shown`` (the status of a framework whose cells follow)."""
    heading = f"{name} {version}" if version else name
    return heading if status == shown else f"{heading}: {escape(status)}"


def _doctor_lines(report: Report, dialects: bool = False) -> list[str]:
    """The matrix as plain lines, one per cell under its framework: any width fits."""
    lines = ["streamfix doctor: stock \u2192 patched" + (", the other dialects (J-M)" * dialects)]
    cells = report.dialect_cells if dialects else report.cells
    width = max(len(name) for name in (DIALECT_SCENARIOS if dialects else SCENARIOS))
    for name in _columns(report, dialects):
        info = report.frameworks[name]
        lines.append(_heading(name, info.get("version"), info["status"], "patched"))
        for cell in cells:
            if cell.framework == name:
                mark = f"{_MARK[cell.stock]}\u2192{_MARK[cell.patched]}"
                lines.append(f"  {cell.scenario:<{width}}  {cell.shape:<4}  {mark}")
    return lines


def _summary(cells: list[Cell], what: str = "") -> str:
    recovered = sum(c.stock == "lost" and c.patched == "ok" for c in cells)
    failed = sum(c.patched == "lost" for c in cells)
    return (
        f"{len(cells)} cells{what}: {sum(c.stock == 'lost' for c in cells)} lost"
        f" stock, {recovered} recovered by the patch, {failed} failing patched."
    )


def doctor(frameworks: list[str] | None = None, as_json: bool = False) -> int:
    """Run the corpus through every installed framework, stock and patched; print the
    matrix (a table on a terminal wide enough, else one line per cell). The exit status:
    0 when every patched cell passes, 1 otherwise."""
    report = run_doctor(frameworks or None)
    if as_json:
        print(report.to_json())
        return 0 if report.ok else 1
    console = _console()
    print_matrix(console, _doctor_table(report), _doctor_lines(report))
    lost = [c for c in report.cells if c.stock == "lost" or c.patched == "lost"]
    for cell in lost:
        line = f"  {cell.framework} {cell.scenario}: stock {escape(cell.stock_detail or 'ok')}"
        if cell.patched == "lost":
            line += f"; [bold red]patched {escape(cell.patched_detail)}[/]"
        console.print(line, markup=True, soft_wrap=True)
    console.print(_summary(report.cells))
    wrong = {name: why for name, why in report.repairs.items() if why is not None}
    for name, why in wrong.items():
        console.print(f"  [bold red]repair {escape(name)}[/]: {escape(why)}", soft_wrap=True)
    console.print(
        f"The repaired wire (streamfix.repair): {len(report.repairs) - len(wrong)} of"
        f" {len(report.repairs)} scenarios canonical and assembling as the original."
    )
    if report.dialect_cells:
        console.print()
        print_matrix(console, _doctor_table(report, True), _doctor_lines(report, True))
        for cell in report.dialect_cells:
            if cell.stock == "lost" or cell.patched == "lost":
                line = f"  {cell.framework} {cell.scenario}: stock {escape(cell.stock_detail)}"
                if cell.patched == "lost":
                    line += f"; patched {escape(cell.patched_detail)}"
                console.print(line, markup=True, soft_wrap=True)
        console.print(_summary(report.dialect_cells, " of the other dialects"))
    return 0 if report.ok else 1


def _reference_cell(outcome: Outcome, finish: str | None) -> str:
    """The reference column: what the server answered non-streamed, in a few words."""
    if outcome.error is not None:
        return f"[yellow]unusable[/]: {escape(outcome.error[:40])}"
    if finish == "length":
        return f"cut off ({len(outcome.calls)} calls)" if outcome.calls else "cut off (text)"
    if outcome.calls:
        return ", ".join(name for name, _ in outcome.calls)
    return "text"


def _live_cell(result: LiveResult | None, status: str) -> str:
    if status == "not installed":
        return "[dim]absent[/]"
    if status != "checked" or result is None:
        return "[dim]n/a[/]"
    if not result.usable:
        return "[yellow]unusable[/]"
    if result.stock_verdict == result.patched_verdict == "server-loss":
        return "[yellow]server-loss[/]"
    stock = _MARK["ok" if result.stock_ok else "lost"]
    return f"{stock}\u2192{_MARK['ok' if result.patched_ok else 'lost']}"


def _live_table(report: LiveReport) -> Any:
    from rich.table import Table  # noqa: PLC0415 (optional extra)

    target = report.target
    title = (
        f"streamfix doctor --live {target.url} ({target.api}, {target.model}): stock \u2192 patched"
    )
    table = Table(title=escape(title), title_justify="left")
    table.add_column("case", no_wrap=True)
    table.add_column("reference (non-streamed)", min_width=12)
    names = list(report.frameworks)
    for name in names:
        version = report.frameworks[name].get("version") or "not installed"
        table.add_column(f"{name}\n{version}", justify="center", no_wrap=True)
    results = {(r.framework, r.case): r for r in report.results}
    for case in report.cases:
        row = [case, _reference_cell(*report.references[case])]
        for name in names:
            row.append(_live_cell(results.get((name, case)), report.frameworks[name]["status"]))
        table.add_row(*row)
    return table


def _live_lines(report: LiveReport) -> list[str]:
    """The live matrix as plain lines: the references, then one line per cell under its
    framework."""
    target = report.target
    title = f"streamfix doctor --live {target.url} ({target.api}, {target.model})"
    lines = [escape(f"{title}: stock \u2192 patched"), "reference (non-streamed):"]
    width = max(len(case) for case in report.cases)
    for case in report.cases:
        lines.append(f"  {escape(case):<{width}}  {_reference_cell(*report.references[case])}")
    results = {(r.framework, r.case): r for r in report.results}
    for name, info in report.frameworks.items():
        lines.append(_heading(name, info.get("version"), info["status"], "checked"))
        if info["status"] == "checked":
            for case in report.cases:
                cell = _live_cell(results.get((name, case)), "checked")
                lines.append(f"  {escape(case):<{width}}  {cell}")
    return lines


def doctor_live(
    url: str,
    model: str | None = None,
    api: Literal["openai", "ollama"] | None = None,
    frameworks: list[str] | None = None,
    as_json: bool = False,
) -> int:
    """Each live case through every installed framework against the server at ``url``,
    stock and patched, each judged against the same request answered non-streamed; print
    the matrix (a table on a terminal wide enough, else one line per cell). The exit
    status: 0 when every patched cell with a usable reference passes, 1 otherwise. Raises
    LiveError when the server cannot be reached."""
    report = run_live(url, model, api, frameworks or None)
    if as_json:
        print(report.to_json())
        return 0 if report.ok else 1
    console = _console()
    print_matrix(console, _live_table(report), _live_lines(report))
    for result in report.results:
        if not result.usable:
            continue
        if result.stock_ok and result.patched_ok:
            continue
        line = f"  {result.framework} {result.case}: stock {escape(result.stock_why or 'ok')}"
        if not result.patched_ok:
            line += f"; [bold red]patched {escape(result.patched_why)}[/]"
        console.print(line, markup=True, soft_wrap=True)
    for line in server_loss_lines(report):
        console.print(line, markup=False, soft_wrap=True)
    for case, (outcome, _) in report.references.items():
        if outcome.error is not None:
            console.print(f"  {case}: reference unusable: {outcome.error}", markup=False)
    usable = [r for r in report.results if r.usable]
    console.print(
        f"{len(report.results)} cells ({len(usable)} with a usable reference):"
        f" {sum(not r.stock_ok for r in usable)} lost stock,"
        f" {sum(not r.stock_ok and r.patched_ok for r in usable)} recovered by the patch,"
        f" {sum(not r.patched_ok for r in usable)} failing patched."
    )
    return 0 if report.ok else 1


def replay(
    path: str, framework: str | None = None, as_json: bool = False, repair: bool = False
) -> int:
    """Assemble a capture; print calls, text and diagnostics (and, with ``framework``,
    what that framework gives stock and patched). ``repair``: print the repaired stream
    instead (wire-shapes R), one chunk a line, and the error it ends with on stderr (exit
    status 1). Raises CaptureError on a bad file."""
    import json  # noqa: PLC0415

    if repair:
        return _repaired(path)
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
            with quiet_frameworks():
                stock, patched = stock_and_patched(framework, result.capture.scenario())
            result.frameworks[framework] = {
                "status": "patched" if patched is not None else "patch failed",
                "stock": outcome_dict(stock),
                "patched": outcome_dict(patched),
            }
    data = whole_characters(result.to_dict())
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    console = _console()
    head = f"{data['format']} ({data['dialect']}), {data['chunks']} chunks"
    console.print(f"[bold]{escape(path)}[/]: {head}")
    _print_message(console, data)
    for name, info in data.get("frameworks", {}).items():
        console.print(f"[bold]{name}[/]: {info['status']}")
        for run in ("stock", "patched"):
            if info.get(run) is not None:
                console.print(f"  {run}:")
                _print_outcome(console, info[run])
    return 0


def _repaired(path: str) -> int:
    """``replay --repair``: the capture's stream repaired, as JSONL on stdout."""
    from .. import StreamFixError, repair  # noqa: PLC0415
    from ..testing import read_capture  # noqa: PLC0415

    capture = read_capture(path)
    try:
        for chunk in repair(capture.chunks):
            print(_json(whole_characters(chunk)))
    except StreamFixError as error:
        print(
            f"streamfix replay: the stream ends in {type(error).__name__}: {error}", file=sys.stderr
        )
        return 1
    return 0


def _json(value: Any) -> str:
    """``value`` as JSON, its text as text (``"😀"``, not ``"\\ud83d\\ude00"``)."""
    import json  # noqa: PLC0415

    return json.dumps(value, ensure_ascii=False)


def _print_message(console: Any, data: dict[str, Any]) -> None:
    console.print(f"text: {data['text']!r}", markup=False)
    if data["reasoning"]:
        console.print(f"reasoning: {data['reasoning']!r}", markup=False)
    console.print(f"finish_reason: {data['finish_reason']}", markup=False)
    for number, call in enumerate(data["calls"]):
        console.print(
            f"call {number}: {call['name']}({_json(call['arguments'])})  id={call['id']}",
            markup=False,
        )
        if call["thought_signature"]:
            console.print(f"  thought_signature: {call['thought_signature']}", markup=False)
    for diagnostic in data["diagnostics"]:
        console.print(f"repaired: {diagnostic['code']}: {diagnostic['detail']}", markup=False)
    if data["error"]:
        error = f"{data['error']['type']}: {data['error']['text']}"
        console.print(f"[red]error[/]: {escape(error)}")


def _print_outcome(console: Any, outcome: dict[str, Any]) -> None:
    for call in outcome["calls"]:
        console.print(f"    call {call['name']}({_json(call['arguments'])})", markup=False)
    if outcome["text"]:
        console.print(f"    text: {outcome['text']!r}", markup=False)
    if outcome["error"]:
        kind = "crash" if outcome["crash"] else "error"
        console.print(f"    {kind}: {outcome['error']}", markup=False)
    if not (outcome["calls"] or outcome["text"] or outcome["error"]):
        console.print("    nothing", markup=False)


def _add_inspection_commands(app: Any, typer: Any) -> None:
    """``doctor`` and ``replay``."""
    names = ", ".join(DRIVERS)  # listing the columns imports no framework

    def doctor_command(
        framework: list[str] = typer.Option(  # noqa: B008 (typer's idiom)
            [],
            "--framework",
            "-f",
            metavar="NAME",
            help=f"Only these frameworks ({names}); default: all.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the matrix as JSON."),
        live: str | None = typer.Option(
            None,
            "--live",
            metavar="URL",
            help="Check a live server instead: an OpenAI-compatible base URL (.../v1) or an"
            " Ollama root. Streamed answers are compared with the same request non-streamed.",
        ),
        model: str | None = typer.Option(
            None,
            "--model",
            metavar="NAME",
            help="With --live: the model (default: the first one listed).",
        ),
        api: str | None = typer.Option(
            None,
            "--api",
            metavar="openai|ollama",
            help="With --live: the server's API (default: probed).",
        ),
    ) -> None:
        """Check every installed framework, stock and patched.

        The public shape corpus through each installed framework's real streaming code;
        with --live URL, live requests to that server instead. Exit status 0 when every
        patched cell passes, 1 otherwise. Without --live: no network, no keys.
        """
        known = live_frameworks() if live is not None else list(DRIVERS)
        unknown = sorted(set(framework) - set(known))
        if unknown:
            raise typer.BadParameter(
                f"unknown framework {', '.join(unknown)}; known: {', '.join(known)}",
                param_hint="--framework",
            )
        if live is None:
            if model is not None or api is not None:
                raise typer.BadParameter("--model and --api go with --live URL")
            raise typer.Exit(doctor(list(framework), as_json))
        chosen: Literal["openai", "ollama"] | None = (
            "openai" if api == "openai" else "ollama" if api == "ollama" else None
        )
        if api is not None and chosen is None:
            raise typer.BadParameter(f"{api!r}: openai or ollama", param_hint="--api")
        try:
            code = doctor_live(live, model, chosen, list(framework), as_json)
        except LiveError as error:
            raise typer.BadParameter(str(error), param_hint="--live") from None
        raise typer.Exit(code)

    def replay_command(
        file: str = typer.Argument(
            ..., metavar="FILE", help="A capture: JSONL chunks, SSE text or Ollama NDJSON."
        ),
        framework: str | None = typer.Option(
            None,
            "--framework",
            "-f",
            metavar="NAME",
            help=f"Also show what this framework gives stock and patched: one of {names}.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
        repaired: bool = typer.Option(
            False,
            "--repair",
            help="Print the repaired stream (OpenAI's own form), one chunk a line.",
        ),
    ) -> None:
        """Assemble a captured stream: calls, text, repairs.

        What was repaired and why; with --framework, what that framework gives stock and
        patched; with --repair, the stream repaired as JSONL (exit status 1 when it ends in
        an error, printed on stderr). Exit status 2 when the file is not a capture.
        """
        if framework is not None and framework not in DRIVERS:
            raise typer.BadParameter(
                f"unknown framework {framework!r}; known: {names}", param_hint="--framework"
            )
        try:
            code = replay(file, framework, as_json, repaired)
        except CaptureError as error:
            raise typer.BadParameter(str(error), param_hint="FILE") from None
        raise typer.Exit(code)

    app.command("doctor")(pipe_safe(doctor_command))
    app.command("replay")(pipe_safe(replay_command))


def _check_port(command: str, port: int) -> None:
    """Exit with status 2 and one line when ``port`` is not a port."""
    if not 0 <= port <= 65535:
        print(f"streamfix {command}: --port {port}: not a port (0 to 65535)", file=sys.stderr)
        raise SystemExit(2)


def _cannot_listen(command: str, host: str, port: int, error: OSError) -> SystemExit:
    """Status 1, after one line saying why the server cannot listen (a port in use)."""
    why = error.strerror or str(error)
    print(f"streamfix {command}: cannot listen on {host}:{port}: {why}", file=sys.stderr)
    return SystemExit(1)


def proxy(
    upstream: str,
    host: str = "127.0.0.1",
    port: int = 8788,
    record: str | None = None,
    **options: Any,
) -> None:
    """Run the repairing proxy until Ctrl-C (``options`` as for ``create_app``)."""
    from ..proxy import ProxyServer  # noqa: PLC0415

    if host in ("0.0.0.0", "::", ""):
        print(
            f"streamfix proxy: warning: --host {host or '0.0.0.0'} listens on every interface:"
            " anyone who reaches this machine can use the upstream, with the API keys"
            " clients send through it",
            file=sys.stderr,
            flush=True,
        )
    server = ProxyServer(upstream, host, port, record=record, **options).start()
    saved = f"; captures in {record}" if record else ""
    print(f"streamfix proxy on {server.url} -> {server.app.upstream}{saved}", flush=True)
    print(f"  OpenAI: {server.openai_base_url}   Ollama: {server.url}", flush=True)
    try:
        server.wait()
    except KeyboardInterrupt:
        server.stop()


def _add_proxy_command(app: Any, typer: Any) -> None:
    def proxy_command(
        upstream: str = typer.Option(
            ...,
            metavar="URL",
            help="The endpoint's root, e.g. http://127.0.0.1:11434 or https://api.openai.com.",
        ),
        host: str = typer.Option("127.0.0.1", metavar="HOST", help="Interface to listen on."),
        port: int = typer.Option(8788, metavar="PORT", help="Port (0: a free one)."),
        record: str | None = typer.Option(
            None, metavar="DIR", help="Also save every streamed answer, as sent, as a capture."
        ),
        max_argument_bytes: int | None = typer.Option(
            None, metavar="N", help="End a stream whose call's arguments grow past N bytes."
        ),
        max_body_bytes: int | None = typer.Option(
            None, metavar="N", help="Answer 413 to a request body over N bytes (32 MiB)."
        ),
        connect_timeout: float | None = typer.Option(
            None, metavar="S", help="Seconds to connect to the upstream (10)."
        ),
        read_timeout: float | None = typer.Option(
            None, metavar="S", help="Seconds to wait for the upstream's next bytes (600)."
        ),
    ) -> None:
        """Repair streamed tool calls for any client, as a proxy.

        Point any client's base URL at it. Streamed chat answers come back repaired;
        everything else is forwarded as is. It never changes a request, never retries.
        """
        _check_port("proxy", port)
        options = {
            "max_argument_bytes": max_argument_bytes,
            "max_body_bytes": max_body_bytes,
            "connect_timeout": connect_timeout,
            "read_timeout": read_timeout,
        }
        try:
            proxy(upstream, host, port, record, **options)
        except ValueError as error:
            raise typer.BadParameter(str(error), param_hint="--upstream") from None
        except OSError as error:
            raise _cannot_listen("proxy", host, port, error) from None

    app.command("proxy")(pipe_safe(proxy_command))


def _add_process_commands(app: Any, typer: Any) -> None:
    """``run``, ``record``, ``proxy`` and ``serve``."""

    def run_command(
        command: list[str] = typer.Argument(  # noqa: B008 (typer's idiom)
            ..., metavar="COMMAND", help="The command, after --: streamfix run -- python app.py"
        ),
    ) -> None:
        """Run a program with every installed patch active.

        No change to its code: every Python it starts patches the installed frameworks.
        """
        from ._run import run as run_program  # noqa: PLC0415

        raise typer.Exit(run_program(list(command)))

    def record_command(
        upstream: str = typer.Option(
            ...,
            metavar="URL",
            help="The endpoint's root, e.g. http://127.0.0.1:11434 or https://api.openai.com.",
        ),
        out: str = typer.Option("captures", metavar="DIR", help="Folder for the JSONL captures."),
        host: str = typer.Option("127.0.0.1", metavar="HOST", help="Interface to listen on."),
        port: int = typer.Option(0, metavar="PORT", help="Port (0: a free one)."),
    ) -> None:
        """Record every streamed response through a proxy.

        A loopback proxy: passes responses through unchanged, saves each streamed one as
        a JSONL capture.
        """
        from ._record import RecordServer  # noqa: PLC0415

        _check_port("record", port)
        try:
            server = RecordServer(upstream, out, host, port).start()
        except OSError as error:
            raise _cannot_listen("record", host, port, error) from None
        print(f"streamfix recording on {server.url} -> {upstream}; captures in {out}", flush=True)
        try:
            server.wait()
        except KeyboardInterrupt:
            server.stop()

    def serve_command(
        host: str = typer.Option("127.0.0.1", metavar="HOST", help="Interface to listen on."),
        port: int = typer.Option(0, metavar="PORT", help="Port (0: a free one)."),
        replay: str | None = typer.Option(
            None,
            metavar="FILE",
            help="Replay this capture (JSONL chunks, SSE text or Ollama NDJSON) for every model.",
        ),
    ) -> None:
        """Serve the wire shapes (or a capture) on loopback.

        OpenAI SSE and Ollama NDJSON; the model names the scenario.
        """
        _check_port("serve", port)
        try:
            serve(host, port, replay)
        except CaptureError as error:
            raise typer.BadParameter(str(error), param_hint="--replay") from None
        except OSError as error:
            raise _cannot_listen("serve", host, port, error) from None

    app.command("run", context_settings={"allow_interspersed_args": False})(pipe_safe(run_command))
    app.command("record")(pipe_safe(record_command))
    _add_proxy_command(app, typer)
    app.command("serve")(pipe_safe(serve_command))


def _app() -> Any:
    import typer  # type: ignore[import-not-found, unused-ignore]  # noqa: PLC0415 (optional extra)

    app = typer.Typer(
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,  # plain help (no <bool> after a flag) and one-line errors
        help="streamfix: streamed tool calls, assembled correctly.",
    )

    def print_version(value: bool) -> None:
        if value:
            print(f"streamfix {__version__}")
            raise typer.Exit()

    def callback(
        version: bool = typer.Option(
            False,
            "--version",
            is_eager=True,
            callback=print_version,
            help="Print the version and exit.",
        ),
    ) -> None:
        """streamfix command line."""

    app.callback()(callback)
    _add_inspection_commands(app, typer)
    _add_process_commands(app, typer)
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
