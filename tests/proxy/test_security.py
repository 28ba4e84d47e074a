"""Security: the proxy listens on loopback unless told otherwise; it contacts only its
upstream, whatever the request line, the Host header or the path say; API keys go to the
upstream and nowhere else (not in a log, not in a capture, not in an error); bodies are
not logged."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fake_upstream import UpstreamServer
from proxy_helpers import body, sse_events
from support.cli import cli

from streamfix.proxy import ProxyServer
from streamfix.testing import ReplayServer

SECRETS = {
    "authorization": "Bearer sk-SECRET-bearer-0001",
    "api-key": "SECRET-azure-key-0002",
    "x-api-key": "SECRET-anthropic-key-0003",
}
BODY_SECRET = "SECRET-user-message-0004"


@pytest.fixture(scope="module")
def upstream() -> Iterator[UpstreamServer]:
    with UpstreamServer() as server:
        yield server


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[UpstreamServer]:
    """A server the proxy must never reach."""
    with UpstreamServer() as server:
        yield server


@pytest.fixture(scope="module")
def proxy(upstream: UpstreamServer) -> Iterator[ProxyServer]:
    with ProxyServer(upstream.url) as server:
        yield server


def test_loopback_unless_told_otherwise(capsys: pytest.CaptureFixture[str]) -> None:
    assert ProxyServer("http://127.0.0.1:9").host == "127.0.0.1"
    code, out, _ = cli(capsys, "proxy", "--help")
    assert code == 0
    assert "127.0.0.1" in out
    assert "8788" in out


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_every_interface_is_a_warning(host: str, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as taken:
        taken.bind((host, 0))  # taken: the proxy cannot listen (nothing is served)
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = cli(
            capsys, "proxy", "--upstream", "http://127.0.0.1:9", "--host", host, "--port", str(port)
        )
    assert code == 1
    assert f"--host {host} listens on every interface" in err
    assert "cannot listen" in err


def _raw(proxy: ProxyServer, request: bytes) -> bytes:
    """Send ``request`` as is (no client normalises it); the answer's bytes."""
    with socket.create_connection((proxy.host, proxy.port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize(
    "target",
    [
        "http://{other}/v1/models",  # an absolute URL in the request line
        "//{other}/v1/models",  # a network-path reference
        "/../v1/models",
        "/v1/../../v1/models",
        "/%2e%2e/v1/models",
        "/v1/%2F%2F{other}/x",
        "/v1/./models",
        "/v1\\models",
    ],
)
def test_the_request_target_cannot_choose_the_server(
    proxy: ProxyServer, upstream: UpstreamServer, elsewhere: UpstreamServer, target: str
) -> None:
    other = f"127.0.0.1:{elsewhere.port}"
    before = len(upstream.app.seen)
    line = f"GET {target.format(other=other)} HTTP/1.1\r\nHost: {other}\r\n"
    answer = _raw(proxy, (line + "Connection: close\r\n\r\n").encode())
    assert elsewhere.app.seen == []
    if target.startswith("http://") and answer.startswith(b"HTTP/1.1 200"):
        # uvicorn on httptools reads an absolute URL's path alone (on h11: a 400 below);
        # either way the request goes to the configured upstream only
        assert [r["path"] for r in upstream.app.seen[before:]] == ["/v1/models"]
        return
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert len(upstream.app.seen) == before  # refused, not forwarded anywhere


def test_the_host_header_cannot_choose_the_server(
    proxy: ProxyServer, upstream: UpstreamServer, elsewhere: UpstreamServer
) -> None:
    other = f"127.0.0.1:{elsewhere.port}"
    headers = {"Host": other, "X-Forwarded-Host": other, "Forwarded": f"host={other}"}
    response = httpx.get(proxy.url + "/v1/models", headers=headers, timeout=30)
    seen = response.json()
    assert seen["path"] == "/v1/models"
    assert seen["headers"]["host"] == f"127.0.0.1:{upstream.port}"
    assert elsewhere.app.seen == []


def test_redirects_are_not_followed(proxy: ProxyServer, elsewhere: UpstreamServer) -> None:
    """A 3xx from the upstream goes back to the client as it is."""
    del proxy  # the fake upstream answers no redirect; the client is made without following
    from streamfix.proxy import create_app

    assert create_app("http://127.0.0.1:1").http().follow_redirects is False
    assert elsewhere.app.seen == []


def test_keys_are_forwarded_as_sent(proxy: ProxyServer, upstream: UpstreamServer) -> None:
    response = httpx.post(proxy.url + "/v1/chat/completions", json={}, headers=SECRETS)
    seen = response.json()["headers"]
    assert {name: seen[name] for name in SECRETS} == SECRETS


class _Everything(logging.Handler):
    """Every record of every logger, formatted, with its traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.text: list[str] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.text.append(self.format(record))


@pytest.fixture
def every_log() -> Iterator[_Everything]:
    handler = _Everything()
    names = ["", "uvicorn", "uvicorn.error", "uvicorn.access", "httpx", "httpcore"]
    names += ["streamfix", "streamfix.proxy"]
    loggers = [logging.getLogger(name) for name in names]
    kept = [(logger.level, logger.disabled) for logger in loggers]
    for logger in loggers:  # on, whatever other tests (litellm) did to them
        logger.setLevel(logging.DEBUG)
        logger.disabled = False
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger, (level, disabled) in zip(loggers, kept, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.disabled = disabled


def test_keys_and_bodies_are_never_logged_nor_recorded(
    tmp_path: Path, streamfix_server: ReplayServer, every_log: _Everything
) -> None:
    request = body("b2-same-index")
    request["messages"] = [{"role": "user", "content": BODY_SECRET}]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    answers = []
    ollama = {**request, "model": "ollama-call-per-line"}
    with ProxyServer(streamfix_server.url, record=tmp_path, max_body_bytes=100_000) as proxy:
        url = proxy.url + "/v1/chat/completions?key=" + SECRETS["api-key"]
        answers.append(httpx.post(url, json=request, headers=SECRETS, timeout=30))
        answers.append(httpx.post(url, json={**request, "stream": False}, headers=SECRETS))
        answers.append(httpx.post(proxy.url + "/api/chat", json=ollama, headers=SECRETS))
        huge = {**request, "padding": "x" * 200_000}
        answers.append(httpx.post(url, json=huge, headers=SECRETS, timeout=30))
    with ProxyServer(f"http://127.0.0.1:{dead}") as unreachable:
        url = unreachable.url + "/v1/chat/completions?key=" + SECRETS["api-key"]
        answers.append(httpx.post(url, json=request, headers=SECRETS, timeout=30))
    assert [a.status_code for a in answers] == [200, 200, 200, 413, 502]
    assert sse_events(answers[0].text)[-1] == "[DONE]"
    # the proxy's lines, not the test client's own (httpx logs the URL it calls)
    mine = (f":{proxy.port}/", f":{unreachable.port}/")
    logged = "\n".join(
        line
        for line in every_log.text
        if not (line.startswith("httpx INFO HTTP Request") and any(m in line for m in mine))
    )
    # the proxy's requests upstream, logged by httpx, lose their query (by the proxy's
    # filter, or by litellm's, which redacts httpx's lines once litellm is imported)
    upstream = f"HTTP Request: POST {streamfix_server.url}/v1/chat/completions?"
    assert upstream in logged
    assert "streamfix.proxy" in logged  # the proxy did log its lines
    written = "".join(p.read_text() for p in tmp_path.iterdir())
    assert written  # the stream was recorded
    errors = answers[3].text + answers[4].text
    for secret in [*SECRETS.values(), BODY_SECRET, "sk-SECRET"]:
        assert secret not in logged
        assert secret not in written
        assert secret not in errors


def test_httpx_lines_lose_the_query_of_a_request_upstream() -> None:
    """httpx logs each request's URL: the proxy's filter (on the ``httpx`` logger) leaves
    the query out of a request to its upstream (``?key=`` is how some APIs take their
    key), and of no other."""
    from streamfix.proxy import _app, create_app

    create_app("http://127.0.0.1:7").http()  # the filter is on once a client exists
    assert _app._QUERIES in logging.getLogger("httpx").filters
    secret = httpx.URL("http://127.0.0.1:7/v1/x?key=" + SECRETS["api-key"])
    other = httpx.URL("http://elsewhere:7/x?a=1")
    record = logging.LogRecord("httpx", logging.INFO, __file__, 1, "%s %s", (secret, other), None)
    assert _app._QUERIES.filter(record)
    assert record.getMessage() == (
        "http://127.0.0.1:7/v1/x?(query not logged) http://elsewhere:7/x?a=1"
    )
