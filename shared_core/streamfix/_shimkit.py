"""The shim kit: what every framework shim uses to check versions, patch and restore.

A shim declares one :class:`Shim`: its framework's distribution and supported version
range, the module whose import should trigger the patch (``TRIGGER``), and its binding
sites (:class:`Site`: where a name the fix replaces is bound). :meth:`Shim.install`
checks the installed version first, then replaces the name at every site, saving what
each held; :meth:`Shim.uninstall` puts back exactly that object, and only where the
site still holds the replacement (restoring by identity, so a patch someone else
stacked on top is left alone and reported). A site marked ``everywhere`` is also
replaced in every imported module that bound the same object by name before install
(``from framework import helper``).

Standard library only; the framework is imported only by :meth:`Shim.install` (a shim's
package must import without its framework, so that the registry can ask
:meth:`Shim.available`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import logging
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Shim",
    "ShimSkipped",
    "Site",
    "UnsupportedVersionError",
    "in_range",
    "release",
    "stock",
    "stock_of",
]

logger = logging.getLogger("streamfix")

Replacement = str | Callable[[Any], Any]
"""``"module:attribute"`` naming the replacement, or a function of the original
returning it."""


class UnsupportedVersionError(RuntimeError):
    """The installed framework's version is outside the shim's supported range."""


class ShimSkipped(RuntimeError):
    """The framework cannot be loaded in this process as it is configured (shell_gpt
    without an API key); the message says what it needs. The registry logs it as one
    line, ``"<name> skipped: <message>"``, with no traceback."""


@dataclass(frozen=True)
class Site:
    """One place a name the fix replaces is bound.

    ``module`` is imported at install; ``attribute`` is a name in it, or
    ``"Class.name"`` for a class attribute (replaced on the class itself, the one place
    every instance and subclass resolves it from). ``optional``: skip the site when its
    module cannot be imported (an optional UI). ``everywhere``: also rebind the name in
    every other imported module that holds the same object.
    """

    module: str
    attribute: str
    replacement: Replacement
    optional: bool = False
    everywhere: bool = False


@dataclass
class _Saved:
    owner: Any
    name: str
    original: Any
    replacement: Any


# (id(owner), name) -> what stood there before any shim replaced it (see stock()).
_ORIGINALS: dict[tuple[int, str], Any] = {}


def stock(owner: Any, name: str) -> Any:
    """What ``owner.name`` held before a shim replaced it (its current value if no shim
    did): how a fixed function calls the framework's own code while patched."""
    original = _ORIGINALS.get((id(owner), name))
    return owner.__dict__[name] if original is None else original


@functools.cache
def stock_of(module: str, attribute: str) -> Any:
    """:func:`stock` of ``module``'s ``attribute`` (``"Class.name"``), found once (the
    original object never changes): for a fixed method that calls the stock one on every
    chunk."""
    return stock(*_owner(importlib.import_module(module), attribute))


def _owner(module: Any, attribute: str) -> tuple[Any, str]:
    """The object holding ``attribute`` (``"name"`` or ``"Class.name"``) and the name."""
    *classes, name = attribute.split(".")
    owner = module
    for part in classes:
        owner = getattr(owner, part)
    return owner, name


_SPEC = re.compile(r"\s*(>=|<=|==|!=|>|<)\s*([0-9][0-9.]*)(\.\*)?\s*")


def _numbers(text: str) -> tuple[int, ...]:
    """The leading release numbers of a version string (``"2.13.0rc1"`` -> (2, 13, 0))."""
    numbers = []
    for part in text.split("."):
        digits = re.match(r"\d+", part)
        if digits is None:
            break
        numbers.append(int(digits.group()))
        if digits.end() != len(part):
            break
    return tuple(numbers)


def release(distribution: str) -> tuple[int, ...]:
    """The installed ``distribution``'s release numbers (``(2, 13, 0)``); raises
    ``importlib.metadata.PackageNotFoundError`` when it is not installed."""
    from importlib.metadata import version  # noqa: PLC0415 (kept out of import streamfix)

    return _numbers(version(distribution))


def in_range(found: str, supported: str) -> bool:
    """Whether version ``found`` satisfies ``supported``: comma-separated clauses of
    ``>=``, ``>``, ``<=``, ``<``, ``==`` (``X.Y.*`` allowed) and ``!=`` on release
    numbers (``">=1.39,<3"``)."""
    version = _numbers(found)
    for clause in supported.split(","):
        match = _SPEC.fullmatch(clause)
        if match is None:
            raise ValueError(f"not a version clause: {clause!r}")
        op, bound_text, wildcard = match.groups()
        bound = _numbers(bound_text)
        width = max(len(version), len(bound))
        have = version[: len(bound)] if wildcard else version + (0,) * (width - len(version))
        want = bound if wildcard else bound + (0,) * (width - len(bound))
        if not _compare(op, have, want):
            return False
    return True


def _compare(op: str, have: tuple[int, ...], want: tuple[int, ...]) -> bool:
    if op == ">=":
        return have >= want
    if op == ">":
        return have > want
    if op == "<=":
        return have <= want
    if op == "<":
        return have < want
    if op == "==":
        return have == want
    return have != want


class Shim:
    """One framework's patch: version check, install, uninstall, installed.

    ``package`` is the shim's package (``"streamfix_adk"``): the patch's name is the
    package's without ``streamfix_`` (``"adk"``), and its doctor driver is the package's
    ``_doctor.DRIVER``. ``distribution`` is the framework's distribution, whose version
    must be in ``supported``. ``trigger``, the module whose import applies the patch
    (``streamfix.install_on_import``; or several: the first imported applies it), is the
    first site's module unless given.
    ``requires``: modules that must be importable for :meth:`available` (the framework,
    and what the fix uses with it). ``on_uninstall`` runs after every site is restored
    (state a fixed stream may have left in the framework). ``more_drivers``: further
    doctor columns of the same patch, ``{column: attribute of the package's _doctor}``
    (a framework with two streaming paths). ``precondition``: what the framework needs
    in this process before it can even be imported (its own configuration), read without
    importing it: a sentence saying what is missing, or ``None``. The object itself is
    the shim's ``streamfix.patches`` entry point.
    """

    def __init__(
        self,
        package: str,
        distribution: str,
        supported: str,
        sites: Sequence[Site],
        *,
        trigger: str | Sequence[str] | None = None,
        requires: Sequence[str] = (),
        on_uninstall: Callable[[], None] | None = None,
        more_drivers: Mapping[str, str] | None = None,
        precondition: Callable[[], str | None] | None = None,
    ) -> None:
        in_range("0", supported)  # a malformed range fails at import, not at install
        self.package = package
        self.name = package.removeprefix("streamfix_")
        self.distribution = distribution
        self.supported = supported
        self.sites = tuple(sites)
        triggers = (trigger,) if isinstance(trigger, str) else tuple(trigger or ())
        self.triggers = triggers or (self.sites[0].module,)
        self.trigger = self.triggers[0]
        self.requires = tuple(requires) or (self.trigger.partition(".")[0],)
        self.on_uninstall = on_uninstall
        self.more_drivers = dict(more_drivers or {})
        self.precondition = precondition
        self._saved: list[_Saved] = []

    # The names the registry and the doctor read on a ``streamfix.patches`` entry point.

    @property
    def TRIGGER(self) -> str | tuple[str, ...]:
        """The module whose import triggers the patch (``streamfix.install_on_import``),
        or the modules, the first of them imported triggering it (a framework with two
        streaming paths in two modules, either of which a program may use alone)."""
        return self.trigger if len(self.triggers) == 1 else self.triggers

    @property
    def DOCTOR(self) -> str:
        """The doctor's driver for the framework, ``"module:attribute"`` (imported when
        the doctor runs it)."""
        return f"{self.package}._doctor:DRIVER"

    @property
    def DOCTORS(self) -> dict[str, str]:
        """Every doctor column of the patch, ``{column: "module:attribute"}``: its own
        name's :attr:`DOCTOR`, then ``more_drivers``. A column's driver names the patch
        it installs (``Driver.name``)."""
        more = {column: f"{self.package}._doctor:{a}" for column, a in self.more_drivers.items()}
        return {self.name: self.DOCTOR, **more}

    def functions(
        self,
    ) -> tuple[Callable[[], bool], Callable[[], None], Callable[[], bool], Callable[[], None]]:
        """``available, install, installed, uninstall``: the shim package's own API."""
        return self.available, self.install, self.installed, self.uninstall

    def available(self) -> bool:
        """Whether the framework (and what the fix needs) is installed."""
        try:
            return all(importlib.util.find_spec(module) is not None for module in self.requires)
        except (ImportError, ValueError):
            return False

    def version(self) -> str:
        """The installed framework's version string."""
        from importlib.metadata import version  # noqa: PLC0415 (kept out of import streamfix)

        return version(self.distribution)

    def version_info(self) -> tuple[int, ...]:
        """The installed framework's release numbers (``(2, 13, 0)``)."""
        return release(self.distribution)

    def check_version(self) -> None:
        """Raise :class:`UnsupportedVersionError` unless the installed version is supported."""
        found = self.version()
        if not in_range(found, self.supported):
            raise UnsupportedVersionError(
                f"streamfix {self.name}: {self.distribution} {found} is not supported"
                f" (supported: {self.supported}); not patched"
            )

    def check(self) -> None:
        """Raise :class:`ShimSkipped` when the framework's precondition is not met, or
        :class:`UnsupportedVersionError`; the framework is not imported (what the registry
        asks before it waits for the framework's import)."""
        missing = self.precondition() if self.precondition is not None else None
        if missing:
            raise ShimSkipped(missing)
        self.check_version()

    def installed(self) -> bool:
        """Whether the patch is active."""
        return bool(self._saved)

    def install(self) -> None:
        """:meth:`check`, then replace the name at every site. Idempotent.

        All or nothing: if any site fails, the sites already replaced are restored and
        the error is raised.
        """
        if self._saved:
            return
        self.check()
        try:
            for site in self.sites:
                self._patch(site)
        except BaseException:
            self.uninstall()
            raise

    def uninstall(self) -> None:
        """Put back what each site held before :meth:`install`. Idempotent."""
        while self._saved:
            saved = self._saved.pop()
            current = saved.owner.__dict__.get(saved.name)
            if current is saved.replacement:
                setattr(saved.owner, saved.name, saved.original)
            else:
                logger.warning(
                    "streamfix %s: %s.%s was replaced again by someone else; left as it is",
                    self.name,
                    getattr(saved.owner, "__name__", saved.owner),
                    saved.name,
                )
            _ORIGINALS.pop((id(saved.owner), saved.name), None)
        if self.on_uninstall is not None:
            self.on_uninstall()

    def _patch(self, site: Site) -> None:
        try:
            module = importlib.import_module(site.module)
        except ImportError:
            if site.optional:
                return
            raise
        owner, name = _owner(module, site.attribute)
        if name not in owner.__dict__:
            if site.optional:
                return
            raise AttributeError(f"{site.module}.{site.attribute} does not exist")
        original = owner.__dict__[name]
        replacement = _resolve(site.replacement, original)
        owners = [owner]
        if site.everywhere:
            owners += [
                other
                for other in list(sys.modules.values())
                if other is not None
                and other is not owner
                and getattr(other, "__dict__", {}).get(name) is original
            ]
        for target in owners:
            self._saved.append(_Saved(target, name, original, replacement))
            _ORIGINALS[(id(target), name)] = original
            setattr(target, name, replacement)


def _resolve(replacement: Replacement, original: Any) -> Any:
    if callable(replacement):
        return replacement(original)
    module, _, attribute = replacement.partition(":")
    return getattr(importlib.import_module(module), attribute)


# --- a wire and a framework shim on one stream ----------------------------------------------

#: Set on a stream object by a framework shim that sends every chunk of it through the core
#: itself (google-adk's): a wire shim then passes that stream on as its SDK gives it, so no
#: chunk is assembled twice and the framework shim decides alone.
_DOWNSTREAM = "_streamfix_assembled_downstream"


def assembled_downstream(stream: Any) -> Any:
    """Mark ``stream`` (an SDK's stream object) as assembled by the shim reading it; the
    stream itself, for chaining. A stream that takes no attribute is left as it is."""
    with contextlib.suppress(AttributeError, TypeError):
        stream.__dict__[_DOWNSTREAM] = True
    return stream


def is_assembled_downstream(stream: Any) -> bool:
    """Whether a framework shim marked ``stream`` with :func:`assembled_downstream`."""
    return bool(getattr(stream, "__dict__", {}).get(_DOWNSTREAM))
