"""streamfix.install / uninstall: discovery through real entry points, failures contained."""

from __future__ import annotations

import logging
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import streamfix

PATCHES = '''
calls = []
def available(): return True
def install(): calls.append("install")
def uninstall(): calls.append("uninstall")
'''
BROKEN = '''
def available(): return True
def install(): raise RuntimeError("framework 9.9 is not supported")
def uninstall(): pass
'''
ABSENT = '''
def available(): return False
def install(): raise AssertionError("never called when the framework is absent")
def uninstall(): pass
'''


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
