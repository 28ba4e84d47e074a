"""The shim kit: version ranges, patch and restore by identity at every binding site."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest

from streamfix._shimkit import Shim, Site, UnsupportedVersionError, in_range, stock


@pytest.mark.parametrize(
    ("found", "supported", "ok"),
    [
        ("1.39.1", ">=1.39,<3", True),
        ("1.38.9", ">=1.39,<3", False),
        ("2.13.0", ">=1.39,<3", True),
        ("3.0.0", ">=1.39,<3", False),
        ("3.0.0rc1", ">=1.39,<3", False),
        ("1.5.1", "==1.5.*", True),
        ("1.6.0", "==1.5.*", False),
        ("1.5", "==1.5.*", True),
        ("2.0.0", ">=1.24,<2", False),
        ("1.24", ">=1.24,<2", True),
        ("1.110.2", ">=1.80,<2", True),
        ("1.79.3", ">=1.80,<2", False),
        ("2.1", "!=2.1", False),
        ("2.1.1", ">2.1,<=2.2", True),
    ],
)
def test_in_range(found: str, supported: str, ok: bool) -> None:
    assert in_range(found, supported) is ok


def test_a_malformed_range_fails_at_definition() -> None:
    with pytest.raises(ValueError, match="not a version clause"):
        Shim("streamfix_x", "x", "~1.2", [], trigger="x")


def _stock_function() -> str:
    return "stock"


def _fixed_function() -> str:
    return "fixed"


class Owner:
    @staticmethod
    def method() -> str:
        return "stock"


@pytest.fixture
def framework() -> Iterator[types.ModuleType]:
    """A fake framework ``fw`` (defines the function and a class), plus ``fw_user`` that
    imported the function by name before install, and ``fw_other`` that did not."""
    fw = types.ModuleType("fw")
    fw.helper = _stock_function  # type: ignore[attr-defined]
    fw.Owner = Owner  # type: ignore[attr-defined]
    user = types.ModuleType("fw_user")
    user.helper = _stock_function  # type: ignore[attr-defined]
    other = types.ModuleType("fw_other")
    other.helper = lambda: "unrelated"  # type: ignore[attr-defined]
    saved_method = Owner.__dict__["method"]
    sys.modules.update(fw=fw, fw_user=user, fw_other=other)
    yield fw
    for name in ("fw", "fw_user", "fw_other"):
        sys.modules.pop(name, None)
    Owner.method = saved_method  # type: ignore[method-assign]


def _shim(*sites: Site, version: str = "1.2.0") -> Shim:
    shim = Shim("streamfix_fw", "fw", ">=1.0,<2", sites, trigger="fw")
    shim.version = lambda: version  # type: ignore[method-assign]
    return shim


FIXED = f"{__name__}:_fixed_function"


def test_install_replaces_every_binding_and_uninstall_restores_by_identity(
    framework: types.ModuleType,
) -> None:
    method = Owner.__dict__["method"]
    shim = _shim(
        Site("fw", "helper", FIXED, everywhere=True),
        Site("fw", "Owner.method", lambda original: staticmethod(lambda: "fixed")),
    )
    assert not shim.installed()
    shim.install()
    shim.install()  # idempotent
    assert shim.installed()
    assert framework.helper() == sys.modules["fw_user"].helper() == "fixed"
    assert sys.modules["fw_other"].helper() == "unrelated"
    assert Owner.method() == "fixed"
    assert stock(framework, "helper") is _stock_function
    assert stock(Owner, "method") is method
    shim.uninstall()
    shim.uninstall()  # idempotent
    assert not shim.installed()
    assert framework.helper is _stock_function
    assert sys.modules["fw_user"].helper is _stock_function
    assert Owner.__dict__["method"] is method  # the staticmethod object itself
    assert stock(framework, "helper") is _stock_function


def test_unsupported_version_patches_nothing(framework: types.ModuleType) -> None:
    shim = _shim(Site("fw", "helper", FIXED), version="2.0.0")
    with pytest.raises(UnsupportedVersionError, match=r"fw 2\.0\.0 is not supported"):
        shim.install()
    assert framework.helper is _stock_function
    assert not shim.installed()


def test_optional_site_skipped_required_site_all_or_nothing(framework: types.ModuleType) -> None:
    optional = _shim(Site("fw", "helper", FIXED), Site("fw_missing_ui", "x", FIXED, optional=True))
    optional.install()
    assert framework.helper is _fixed_function
    optional.uninstall()
    required = _shim(Site("fw", "helper", FIXED), Site("fw", "absent", FIXED))
    with pytest.raises(AttributeError, match="absent"):
        required.install()
    assert framework.helper is _stock_function  # the first site was put back
    assert not required.installed()


def test_a_patch_stacked_on_top_is_left_alone(
    framework: types.ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    shim = _shim(Site("fw", "helper", FIXED))
    shim.install()

    def someone_else() -> str:
        return "theirs"

    framework.helper = someone_else  # type: ignore[attr-defined]
    shim.uninstall()
    assert framework.helper is someone_else
    assert "replaced again" in caplog.text


def test_on_uninstall_runs_after_restoring(framework: types.ModuleType) -> None:
    seen = []
    shim = Shim(
        "streamfix_fw",
        "fw",
        ">=1",
        [Site("fw", "helper", FIXED)],
        on_uninstall=lambda: seen.append(framework.helper),
    )
    shim.version = lambda: "1.0"  # type: ignore[method-assign]
    shim.install()
    shim.uninstall()
    assert seen == [_stock_function]


def test_available_follows_requires() -> None:
    assert _shim().available() is False  # no module "fw" can be found
    assert Shim("streamfix_j", "j", ">=0", [], trigger="json.decoder").available()


def test_names_come_from_the_package() -> None:
    """The patch's name, its doctor driver, its trigger and what it requires follow
    from the package and the first site unless given."""
    shim = Shim("streamfix_fw", "fw-dist", ">=1", [Site("fw.sub", "helper", FIXED)])
    assert shim.name == "fw"
    assert shim.DOCTOR == "streamfix_fw._doctor:DRIVER"
    assert shim.TRIGGER == "fw.sub"
    assert shim.requires == ("fw",)


def test_doctor_columns_name_the_package_drivers() -> None:
    """One doctor column per driver: the patch's own name, then ``more_drivers``."""
    plain = Shim("streamfix_fw", "fw", ">=1.0,<2", [], trigger="fw")
    assert plain.DOCTORS == {"fw": "streamfix_fw._doctor:DRIVER"} == {"fw": plain.DOCTOR}
    two = Shim("streamfix_fw", "fw", ">=1.0,<2", [], trigger="fw", more_drivers={"fw-b": "B"})
    assert two.DOCTORS == {"fw": "streamfix_fw._doctor:DRIVER", "fw-b": "streamfix_fw._doctor:B"}
