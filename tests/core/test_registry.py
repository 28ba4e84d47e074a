"""streamfix.install / uninstall: discovery through real entry points, failures contained."""

from __future__ import annotations

import logging
import sys
import textwrap
from collections.abc import Iterator
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
    assert "lazy" not in streamfix.installed()
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
