"""litellm shim tests: every test starts and ends with stock litellm."""

from __future__ import annotations

from support import shim_fixture

_stock = shim_fixture("litellm", autouse=True, name="_stock")
patched = shim_fixture("litellm", install=True, name="patched")
