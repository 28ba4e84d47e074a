"""Fetch the sdist of an installed distribution and unpack it, without its package
sources, so that its tests import the installed (patched) wheel.

    python tests/upstream_patch/sdist.py DEST DISTRIBUTION PACKAGE [PACKAGE ...]

Downloads ``DISTRIBUTION==<installed version>`` as a source distribution
(``pip download --no-deps --no-binary :all:``), extracts it under DEST, removes each
PACKAGE folder from it (run from the sdist, pytest would import those sources instead of
the installed files) and prints the extracted directory. Nothing is committed.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path


def main(dest: str, distribution: str, *packages: str) -> Path:
    version = importlib.metadata.version(distribution)
    target = Path(dest)
    target.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary"]
    pip += [":all:", "--dest", str(target), f"{distribution}=={version}"]
    subprocess.run(pip, check=True)
    (archive,) = target.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="data")
    (root,) = (path for path in target.iterdir() if path.is_dir())
    for package in packages:
        shutil.rmtree(root / package)
    if not (root / "pytest.ini").exists():
        (root / "pytest.ini").write_text("[pytest]\n")  # never an enclosing project's config
    return root


if __name__ == "__main__":
    print(main(*sys.argv[1:]))
