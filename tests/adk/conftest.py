"""google-adk shim tests: every test starts and ends with stock ADK (fakes: adk_fakes.py)."""

from __future__ import annotations

from support import shim_fixture

_no_patch_left = shim_fixture("adk", autouse=True, name="_no_patch_left")
