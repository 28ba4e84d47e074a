"""The node clients: ``node/package.json`` (pinned versions, with its lock) installed with
``npm ci`` into ``~/.cache/adk-streamfix/npm/<hash of the package files>`` (reused when
present; ``STREAMFIX_NPM_CACHE`` moves it), and ``node/clients.mjs`` run there, one node
process per client for every scenario (one JSON line each).

Without node or npm the tests skip, unless ``STREAMFIX_REQUIRE_NODE=1`` (nox sets it):
then they fail.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from clients import Outcome, parsed
from proxy_helpers import TOOLS, USER

HERE = Path(__file__).resolve().parent / "node"
PACKAGE_FILES = ("package.json", "package-lock.json")
NODE_CLIENTS = ("openai", "ai")


def _missing(what: str) -> None:
    if os.environ.get("STREAMFIX_REQUIRE_NODE") == "1":
        pytest.fail(f"{what} (STREAMFIX_REQUIRE_NODE=1)")
    pytest.skip(what)


def cache_root() -> Path:
    default = Path.home() / ".cache" / "adk-streamfix" / "npm"
    return Path(os.environ.get("STREAMFIX_NPM_CACHE") or default)


def installed() -> Path:
    """The folder with the pinned packages installed (installed now if it is not)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        _missing("node and npm are needed for the node clients")
    digest = hashlib.sha256()
    for name in PACKAGE_FILES:
        digest.update((HERE / name).read_bytes())
    folder = cache_root() / digest.hexdigest()[:16]
    if (folder / ".installed").exists():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / ".lock", "w") as lock:  # one install at a time (xdist)
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".installed").exists():
            _install(folder)
    return folder


def _install(folder: Path) -> None:
    work = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".install-"))
    for name in PACKAGE_FILES:
        shutil.copy(HERE / name, work / name)
    command = ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"]
    done = subprocess.run(
        command, cwd=work, capture_output=True, text=True, timeout=600, check=False
    )
    if done.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        _missing(f"npm ci failed: {done.stderr[-2000:]}")
    (work / ".installed").write_text("ok\n")
    if folder.exists():  # a half-made folder of an earlier, interrupted run
        shutil.rmtree(folder)
    work.rename(folder)


def run(client: str, base_url: str, names: list[str]) -> dict[str, Outcome]:
    """Every scenario of ``names`` through one node process of ``client``."""
    folder = installed()
    script = folder / "clients.mjs"
    shutil.copy(HERE / "clients.mjs", script)  # resolved from the installed packages
    payload = {"client": client, "baseURL": base_url, "names": names, "tools": TOOLS}
    payload["messages"] = USER
    done = subprocess.run(
        ["node", str(script)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    outcomes = {}
    for line in done.stdout.splitlines():
        result: dict[str, Any] = json.loads(line)
        calls = [(c["id"], c["name"], parsed(c["arguments"])) for c in result["calls"]]
        outcomes[result["name"]] = Outcome(calls, result["text"], result["error"])
    assert sorted(outcomes) == sorted(names), done.stderr[-4000:]
    return outcomes
