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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "upstream_patch"))
from sdist import download  # the one sdist download (tests/upstream_patch/sdist.py)

PYTEST_INI = """\
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = session
"""


def main(dest: str) -> Path:
    root = download(dest, "openai", tests_only=True)
    (root / "pytest.ini").write_text(PYTEST_INI)
    return root


if __name__ == "__main__":
    print(main(sys.argv[1]))
