"""openai shim tests: every test starts and ends with the SDK's own stream helper."""

from __future__ import annotations

from support import shim_fixture

_stock = shim_fixture("openai", autouse=True, name="_stock")
patched = shim_fixture("openai", install=True, name="patched")
