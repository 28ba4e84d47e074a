"""Apply one of ``docs/upstream/*.patch`` (a diff in the framework's repository layout), or
a series of them in order, to another layout: the installed wheel's files, or an unpacked
sdist.

    python tests/upstream_patch/apply_patch.py PATCH [PATCH ...] ROOT [--only PREFIX]
                                               [--strip PREFIX] [--check] [--applied]

Only the files whose repository path starts with ``--only`` are applied (``src/`` for the
framework's code, ``tests/`` for the tests the patch adds); ``--strip`` removes a prefix
from every path first (a repository's ``src/`` is not in the wheel). ``patch`` is run
with ``--dry-run`` first, so a patch that no longer applies changes nothing and exits 1
with patch's own words. ``--check`` stops after that dry run; ``--applied`` checks that the
patch is already applied (its reverse applies). A series (several PATCH) is dry-run on a
scratch copy of the files it touches, each patch on the one before it (``--applied``: each
reversed, last first), so ``--check`` fails when any patch of it no longer applies.
"""

from __future__ import annotations

import argparse
import itertools
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["file_diffs", "main", "mapped"]

_HEADER = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.MULTILINE)


def file_diffs(text: str) -> list[tuple[str, str]]:
    """The patch as (repository path, that file's diff), in order."""
    starts = [m.start() for m in _HEADER.finditer(text)] + [len(text)]
    diffs = []
    for start, end in itertools.pairwise(starts):
        part = text[start:end]
        match = _HEADER.match(part)
        assert match is not None
        diffs.append((match.group(2), part))
    return diffs


def mapped(text: str, only: str, strip: str) -> str:
    """The file diffs under ``only``, each path with ``strip`` removed."""
    kept = []
    for path, part in file_diffs(text):
        if not path.startswith(only):
            continue
        diff = part
        if strip:
            for marker in ("a/", "b/"):
                diff = diff.replace(f"{marker}{strip}", marker)
        kept.append(diff)
    if not kept:
        raise SystemExit(f"no file of the patch is under {only!r}")
    return "".join(kept)


def _patch(root: Path, diff: str, *options: str) -> subprocess.CompletedProcess[str]:
    command = ["patch", "-p1", "--forward", "--batch", "--no-backup-if-mismatch", *options]
    return subprocess.run(
        [*command, "-d", str(root)], input=diff, text=True, capture_output=True, check=False
    )


def _series_applies(root: Path, diffs: list[str], *, reverse: bool) -> tuple[bool, str]:
    """Whether ``diffs`` apply one after another (``reverse``: undo, last first), tried on
    a scratch copy of the files they touch under ``root``; patch's words when not."""
    with tempfile.TemporaryDirectory() as scratch:
        for diff in diffs:
            for path, _ in file_diffs(diff):
                source, copy = root / path, Path(scratch, path)
                if source.is_file() and not copy.exists():
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(source, copy)
        options = ("--reverse",) if reverse else ()
        for diff in reversed(diffs) if reverse else diffs:
            done = _patch(Path(scratch), diff, *options)
            if done.returncode != 0:
                return False, f"{done.stdout}{done.stderr}"
    return True, ""


def _main_series(args: argparse.Namespace) -> int:
    names = ", ".join(patch.name for patch in args.patch)
    texts = [patch.read_text() for patch in args.patch]
    if not any(path.startswith(args.only) for text in texts for path, _ in file_diffs(text)):
        raise SystemExit(f"no file of the series is under {args.only!r}")
    diffs = [
        mapped(text, args.only, args.strip)
        for text in texts
        if any(path.startswith(args.only) for path, _ in file_diffs(text))
    ]
    if args.applied:
        done, _ = _series_applies(args.root, diffs, reverse=True)
        print(f"{names}: {'applied' if done else 'NOT applied'}")
        return 0 if done else 1
    applies, words = _series_applies(args.root, diffs, reverse=False)
    if not applies:
        print(f"the series {names} does not apply to {args.root}:\n{words}")
        return 1
    if args.check:
        print(f"the series {names} applies to {args.root}")
        return 0
    for diff in diffs:
        done = _patch(args.root, diff)
        print(done.stdout, end="")
        if done.returncode != 0:
            return done.returncode
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("patch", type=Path, nargs="+", help="a patch, or a series in order")
    parser.add_argument("root", type=Path)
    parser.add_argument("--only", default="")
    parser.add_argument("--strip", default="")
    parser.add_argument("--check", action="store_true", help="dry run only")
    parser.add_argument("--applied", action="store_true", help="check it is applied")
    args = parser.parse_args(argv)
    if len(args.patch) > 1:
        return _main_series(args)
    (patch,) = args.patch
    diff = mapped(patch.read_text(), args.only, args.strip)
    if args.applied:
        done = _patch(args.root, diff, "--reverse", "--dry-run")
        print(f"{patch.name}: {'applied' if done.returncode == 0 else 'NOT applied'}")
        return 0 if done.returncode == 0 else 1
    dry = _patch(args.root, diff, "--dry-run")
    if dry.returncode != 0:
        print(f"{patch.name} does not apply to {args.root}:\n{dry.stdout}{dry.stderr}")
        return 1
    if args.check:
        print(f"{patch.name} applies to {args.root}")
        return 0
    done = _patch(args.root, diff)
    print(done.stdout, end="")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
