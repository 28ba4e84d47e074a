"""streamfix.install / uninstall: discovery through real entry points, failures contained."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import streamfix

PATCHES = """
calls = []
def available(): return True
def install(): calls.append("install")
def uninstall(): calls.append("uninstall")
"""
BROKEN = """
def available(): return True
def install(): raise RuntimeError("framework 9.9 is not supported")
def uninstall(): pass
"""
ABSENT = """
def available(): return False
def install(): raise AssertionError("never called when the framework is absent")
def uninstall(): pass
"""


@pytest.fixture
def fake_shims(tmp_path: Path) -> Iterator[dict[str, object]]:
    """A real installed distribution (a dist-info on sys.path) declaring three patches."""
    for module, source in (("sf_good", PATCHES), ("sf_broken", BROKEN), ("sf_absent", ABSENT)):
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
    info = tmp_path / "sf_fake_shims-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sf-fake-shims\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[streamfix.patches]\ngood = sf_good\nbroken = sf_broken\nabsent = sf_absent\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        import sf_good

        yield {"good": sf_good}
    finally:
        streamfix.uninstall()
        sys.path.remove(str(tmp_path))
        for module in ("sf_good", "sf_broken", "sf_absent"):
            sys.modules.pop(module, None)


def test_install_patches_what_is_available_and_reports_failures(
    fake_shims: dict[str, object], caplog: pytest.LogCaptureFixture
) -> None:
    good = fake_shims["good"]
    with caplog.at_level(logging.WARNING, logger="streamfix"):
        patched = streamfix.install()
    assert "good" in patched
    assert "broken" not in patched and "absent" not in patched
    assert "framework 9.9 is not supported" in caplog.text
    assert good.calls == ["install"]  # type: ignore[attr-defined]
    assert "good" in streamfix.installed()


def test_install_is_idempotent_and_uninstall_restores(fake_shims: dict[str, object]) -> None:
    good = fake_shims["good"]
    assert streamfix.install("good") == ["good"]
    assert streamfix.install("good") == ["good"]
    assert good.calls == ["install"]  # type: ignore[attr-defined]
    assert streamfix.uninstall("good") == ["good"]
    assert streamfix.uninstall("good") == []
    assert good.calls == ["install", "uninstall"]  # type: ignore[attr-defined]
    assert "good" not in streamfix.installed()


def test_unknown_name_is_reported_not_raised(
    fake_shims: dict[str, object], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="streamfix"):
        assert streamfix.install("no-such-framework") == []
    assert "no-such-framework" in caplog.text


LAZY = """
calls = []
TRIGGER = "sf_framework.models"
def available(): return True
def install():
    import sf_framework.models
    calls.append(("install", sf_framework.models.READY))
def uninstall(): calls.append("uninstall")
"""
FRAMEWORK = {"__init__.py": "", "models.py": "READY = True\n"}


@pytest.fixture
def lazy_shim(tmp_path: Path) -> Iterator[object]:
    """A patch whose ``TRIGGER`` is a module of a framework not imported yet."""
    (tmp_path / "sf_lazy.py").write_text(textwrap.dedent(LAZY))
    package = tmp_path / "sf_framework"
    package.mkdir()
    for name, source in FRAMEWORK.items():
        (package / name).write_text(source)
    info = tmp_path / "sf_lazy_shim-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sf-lazy-shim\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[streamfix.patches]\nlazy = sf_lazy\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import sf_lazy

        yield sf_lazy
    finally:
        streamfix.uninstall()
        sys.path.remove(str(tmp_path))
        for module in ("sf_lazy", "sf_framework", "sf_framework.models"):
            sys.modules.pop(module, None)


def test_install_on_import_waits_for_the_trigger_module(lazy_shim: object) -> None:
    import importlib.util

    assert streamfix.install_on_import("lazy") == ["lazy"]
    assert "lazy" in streamfix.installed()  # waiting: patched the moment it is imported
    assert lazy_shim.calls == []  # type: ignore[attr-defined]
    assert importlib.util.find_spec("sf_framework.models") is not None  # a look, no import
    import sf_framework  # the package alone is not the trigger

    assert lazy_shim.calls == []  # type: ignore[attr-defined]
    import sf_framework.models  # noqa: F401

    assert lazy_shim.calls == [("install", True)]  # after the module ran  # type: ignore[attr-defined]
    assert "lazy" in streamfix.installed()
    assert streamfix.install_on_import("lazy") == ["lazy"]  # idempotent
    assert lazy_shim.calls == [("install", True)]  # type: ignore[attr-defined]


def test_install_on_import_of_an_imported_framework_patches_at_once(lazy_shim: object) -> None:
    import sf_framework.models  # noqa: F401

    assert streamfix.install_on_import("lazy") == ["lazy"]
    assert lazy_shim.calls == [("install", True)]  # type: ignore[attr-defined]


def test_install_on_import_without_trigger_patches_at_once(
    fake_shims: dict[str, object], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="streamfix"):
        armed = streamfix.install_on_import("good", "broken", "absent")
    assert armed == ["good"]
    assert fake_shims["good"].calls == ["install"]  # type: ignore[attr-defined]
    assert "framework 9.9 is not supported" in caplog.text


def test_a_failing_deferred_patch_never_breaks_the_import(
    lazy_shim: object, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> None:
        raise RuntimeError("framework 0.1 is not supported")

    lazy_shim.install = broken  # type: ignore[attr-defined]
    assert streamfix.install_on_import("lazy") == ["lazy"]
    with caplog.at_level(logging.WARNING, logger="streamfix"):
        import sf_framework.models

    assert sf_framework.models.READY
    assert "framework 0.1 is not supported" in caplog.text
    assert "lazy" not in streamfix.installed()


# -- install() waits for the framework's import (issue 23) -------------------------------


def test_install_imports_no_framework_and_patches_it_when_imported(lazy_shim: object) -> None:
    assert streamfix.install("lazy") == ["lazy"]
    assert "sf_framework.models" not in sys.modules
    assert lazy_shim.calls == []  # type: ignore[attr-defined]
    assert streamfix.installed() == ["lazy"]
    assert streamfix.install("lazy") == ["lazy"]  # idempotent: one hook
    import sf_framework.models  # noqa: F401

    assert lazy_shim.calls == [("install", True)]  # type: ignore[attr-defined]
    assert streamfix.installed() == ["lazy"]
    assert streamfix.uninstall() == ["lazy"]
    assert lazy_shim.calls == [("install", True), "uninstall"]  # type: ignore[attr-defined]


def test_install_of_an_imported_framework_patches_at_once(lazy_shim: object) -> None:
    import sf_framework.models  # noqa: F401

    assert streamfix.install("lazy") == ["lazy"]
    assert lazy_shim.calls == [("install", True)]  # type: ignore[attr-defined]


def test_uninstall_of_a_waiting_patch_stops_it_waiting(lazy_shim: object) -> None:
    from streamfix import _registry

    assert streamfix.install("lazy") == ["lazy"]
    assert streamfix.uninstall("lazy") == ["lazy"]
    assert streamfix.installed() == []
    assert "sf_framework.models" not in _registry._finder()._hooks
    import sf_framework.models  # noqa: F401

    assert lazy_shim.calls == []  # type: ignore[attr-defined]
    assert streamfix.installed() == []


def test_uninstall_all_stops_every_wait_and_a_second_install_waits_again(
    lazy_shim: object,
) -> None:
    assert streamfix.install("lazy") == ["lazy"]
    assert streamfix.uninstall() == ["lazy"]
    assert streamfix.install("lazy") == ["lazy"]
    import sf_framework.models  # noqa: F401

    assert lazy_shim.calls == [("install", True)]  # once  # type: ignore[attr-defined]


def _raises(error: Exception) -> Callable[[], None]:
    def check() -> None:
        raise error

    return check


def test_a_patch_that_refuses_is_not_left_waiting(
    lazy_shim: object, caplog: pytest.LogCaptureFixture
) -> None:
    lazy_shim.check = _raises(RuntimeError("sf_framework 0.1 is not supported"))  # type: ignore[attr-defined]
    with caplog.at_level(logging.WARNING, logger="streamfix"):
        assert streamfix.install("lazy") == []
    assert "sf_framework 0.1 is not supported" in caplog.text
    assert streamfix.installed() == []


def test_a_skipped_shim_logs_one_line(lazy_shim: object, caplog: pytest.LogCaptureFixture) -> None:
    from streamfix._shimkit import ShimSkipped

    lazy_shim.check = _raises(ShimSkipped("sf_framework needs SF_KEY (any value)"))  # type: ignore[attr-defined]
    with caplog.at_level(logging.WARNING, logger="streamfix"):
        assert streamfix.install("lazy") == []
    assert [(r.getMessage(), r.exc_info) for r in caplog.records] == [
        ("lazy skipped: sf_framework needs SF_KEY (any value)", None)
    ]


def test_a_shim_checks_its_precondition_before_importing_its_framework() -> None:
    from streamfix._shimkit import Shim, ShimSkipped, Site

    shim = Shim(
        "streamfix_nothing",
        "pytest",
        ">=1",
        [Site("sf_never_imported", "x", "sf_never_imported:y")],
        precondition=lambda: "nothing needs NOTHING_KEY",
    )
    with pytest.raises(ShimSkipped, match="nothing needs NOTHING_KEY"):
        shim.install()
    assert not shim.installed()


# In a fresh interpreter: the installed frameworks and shims of this environment.
_INSTALL_ALL = """
import json, logging, sys
logging.basicConfig(level=logging.WARNING, format="%(levelname)s:%(name)s:%(message)s")
import streamfix
done = streamfix.install()
frameworks = ("openai", "litellm", "google.adk", "smolagents", "sgpt")
print(json.dumps({
    "done": done,
    "installed": streamfix.installed(),
    "imported": [name for name in frameworks if name in sys.modules],
}))
"""


def _fresh(code: str, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("STREAMFIX_AUTO", "OPENAI_API_KEY")}
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**base, "HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True", **env},
        stdin=subprocess.DEVNULL,
        timeout=300,
        check=False,
    )


def test_install_imports_no_installed_framework(tmp_path: Path) -> None:
    done = _fresh(_INSTALL_ALL, tmp_path, OPENAI_API_KEY="sk-any")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["imported"] == []
    assert result["done"] == result["installed"]
    assert ("sgpt" in result["installed"]) is _has("sgpt")


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None
