"""The ``streamfix`` command line: ``streamfix serve``.

typer and uvicorn are the optional ``serve`` extra, imported when the command runs.
"""

from __future__ import annotations

import sys
from typing import Any

from ._server import ReplayServer

__all__ = ["main", "serve"]


def serve(host: str = "127.0.0.1", port: int = 0, replay: str | None = None) -> None:
    """Serve the shape corpus (or replay a JSONL capture) until Ctrl-C; print the URL."""
    server = ReplayServer(host, port, capture=replay).start()
    print(f"streamfix serving on {server.url}", flush=True)
    print(f"  OpenAI: {server.openai_base_url}   Ollama: {server.ollama_base_url}", flush=True)
    try:
        server.wait()
    except KeyboardInterrupt:
        server.stop()


def _app() -> Any:
    import typer  # type: ignore[import-not-found, unused-ignore]  # noqa: PLC0415 (optional extra)

    app = typer.Typer(no_args_is_help=True, add_completion=False,
                      help="streamfix: streamed tool calls, assembled correctly.")

    def serve_command(
        host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
        port: int = typer.Option(0, help="Port (0: a free one)."),
        replay: str | None = typer.Option(
            None, help="Replay this JSONL capture (one chunk per line) for every model."
        ),
    ) -> None:
        """Loopback server replaying wire shapes (OpenAI SSE and Ollama NDJSON)."""
        serve(host, port, replay)

    def callback() -> None:
        """streamfix command line."""

    app.callback()(callback)
    app.command("serve")(serve_command)
    return app


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``streamfix`` script."""
    try:
        app = _app()
    except ImportError:
        print("streamfix serve needs the serve extra: pip install 'adk-streamfix[serve]'",
              file=sys.stderr)
        raise SystemExit(2) from None
    app(args=argv, prog_name="streamfix")
