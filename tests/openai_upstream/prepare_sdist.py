"""Fetch the sdist of the installed openai at test time and make its tests runnable.

Run by the nox session ``openai_upstream`` inside its virtualenv::

    python tests/openai_upstream/prepare_sdist.py DEST

Downloads ``openai==<installed version>`` as a source distribution from the package index
(``pip download --no-deps --no-binary :all:``), extracts its ``tests/`` under DEST, writes
a ``pytest.ini`` with the pytest options of the sdist's ``pyproject.toml`` that the tests
need (asyncio's mode and loop scope; not its ``-n auto`` nor its warnings-as-errors) and
prints the extracted directory. Nothing of openai is committed to this repository.

The sdist does not ship the recorded streams (``.inline-snapshot/external/*.bin``) that
most tests of ``tests/lib/chat/test_completions_streaming.py`` replay: those fail on
both runs alike, and the session's comparison lists them.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tarfile
from pathlib import Path

PYTEST_INI = """\
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = session
"""


def main(dest: str) -> Path:
    version = importlib.metadata.version("openai")
    target = Path(dest)
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--dest",
            str(target),
            f"openai=={version}",
        ],
        check=True,
    )
    (archive,) = target.glob(f"openai-{version}.tar.gz")
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if "/tests/" in f"/{m.name}/"]
        tar.extractall(target, members=members, filter="data")
    root = target / f"openai-{version}"
    (root / "pytest.ini").write_text(PYTEST_INI)
    return root


if __name__ == "__main__":
    print(main(sys.argv[1]))
