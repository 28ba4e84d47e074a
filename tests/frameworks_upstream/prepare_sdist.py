"""Fetch the sdist of an installed framework at test time and make its tests runnable.

Run by the nox session ``frameworks_upstream`` inside its virtualenv::

    python tests/frameworks_upstream/prepare_sdist.py DEST DISTRIBUTION

Downloads ``DISTRIBUTION==<installed version>`` as a source distribution from the package
index (``pip download --no-deps --no-binary :all:``), extracts its ``tests/`` folders under
DEST (not its sources: pytest, run from the sdist, would import those instead of the
installed, patched framework), writes a ``pytest.ini`` with the pytest options of the
sdist's ``pyproject.toml`` that the tests need (asyncio's mode and loop scope, the markers
it declares; not its coverage, snapshot or warnings-as-errors options) and prints the
extracted directory. Nothing of the framework is committed to this repository.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "upstream_patch"))
from sdist import download  # the one sdist download (tests/upstream_patch/sdist.py)

#: Each framework's pytest options, as its pyproject.toml sets them for its tests.
PYTEST_INI = {
    "langchain-openai": """\
[pytest]
asyncio_mode = auto
markers =
    requires: mark tests as requiring a specific library
    compile: mark placeholder test used to compile integration tests without running them
    scheduled: mark tests to run in scheduled testing
filterwarnings =
    ignore::langchain_core._api.beta_decorator.LangChainBetaWarning
""",
    "openai-agents": """\
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = session
markers =
    allow_call_model_methods: mark test as allowing calls to real model implementations
    requires_native_macos_sandbox: mark test as requiring its own macOS sandbox-exec process
    review_optional: mark a slow subsystem-specific test that a review check may omit
    serial: mark test as requiring exclusive execution after all xdist workers exit
""",
    "autogen-ext": """\
[pytest]
asyncio_default_fixture_loop_scope = function
markers =
    grpc
""",
    "strands-agents": """\
[pytest]
asyncio_default_fixture_loop_scope = function
""",
    "crewai": """\
[pytest]
asyncio_default_fixture_loop_scope = function
""",
}


def main(dest: str, distribution: str) -> Path:
    root = download(dest, distribution, tests_only=True)
    (root / "pytest.ini").write_text(PYTEST_INI[distribution])
    return root


if __name__ == "__main__":
    print(main(sys.argv[1], sys.argv[2]))
