"""litellm shim tests: every test starts and ends with stock litellm."""

from __future__ import annotations

import pytest
from support import deselect_in_direct_mode, shim_fixture

_stock = shim_fixture("litellm", autouse=True, name="_stock")
patched = shim_fixture("litellm", install=True, name="patched")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_in_direct_mode(config, items)


def _litellm_before(major_minor: tuple[int, int]) -> bool:
    from importlib.metadata import version

    return tuple(int(part) for part in version("litellm").split(".")[:2]) < major_minor


# litellm before 1.81: ``completion()`` on the Responses bridge, Gemini and Bedrock
# raised ``APIConnectionError`` offline (it fetched tiktoken's cl100k encoding from the
# network): the converters are checked there in process (test_doctor_dialects.py: the
# same parsers, the same builder), not through ``completion()``.
collect_ignore = ["test_dialect_converters.py"] if _litellm_before((1, 81)) else []
