"""Fetch the sdist of an installed distribution and unpack it.

    python tests/upstream_patch/sdist.py DEST DISTRIBUTION PACKAGE [PACKAGE ...]
    python tests/upstream_patch/sdist.py --whole DEST DISTRIBUTION

Downloads ``DISTRIBUTION==<installed version>`` as a source distribution
(``pip download --no-deps --no-binary :all:``) and extracts it under DEST. The first form
removes each PACKAGE folder from it (run from the sdist, pytest would import those sources
instead of the installed, patched files) and gives it a ``pytest.ini`` when it has none;
``--whole`` leaves the sdist as released. Both print the extracted directory. The
``prepare_sdist.py`` scripts of the upstream-suite sessions extract with :func:`download`
too. Nothing is committed.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path


def download(dest: str | Path, distribution: str, *, tests_only: bool = False) -> Path:
    """The sdist of the installed ``distribution``, extracted under ``dest`` (only its
    ``tests/`` folders when ``tests_only``); its root."""
    version = importlib.metadata.version(distribution)
    target = Path(dest)
    target.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary"]
    pip += [":all:", "--dest", str(target), f"{distribution}=={version}"]
    subprocess.run(pip, check=True)
    (archive,) = target.glob(f"*-{version}.tar.gz")
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        root = target / members[0].name.split("/")[0]
        if tests_only:
            members = [m for m in members if "/tests/" in f"/{m.name}/"]
        tar.extractall(target, members=members, filter="data")
    return root


def main(dest: str, distribution: str, *packages: str) -> Path:
    root = download(dest, distribution)
    for package in packages:
        shutil.rmtree(root / package)
    if not (root / "pytest.ini").exists():
        (root / "pytest.ini").write_text("[pytest]\n")  # never an enclosing project's config
    return root


if __name__ == "__main__":
    if sys.argv[1] == "--whole":
        print(download(*sys.argv[2:]))
    else:
        print(main(*sys.argv[1:]))
