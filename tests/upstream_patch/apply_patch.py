"""Apply one of ``docs/upstream/*.patch`` (a diff in the framework's repository layout) to
another layout: the installed wheel's files, or an unpacked sdist.

    python tests/upstream_patch/apply_patch.py PATCH ROOT [--only PREFIX] [--strip PREFIX]
                                               [--check] [--applied]

Only the files whose repository path starts with ``--only`` are applied (``src/`` for the
framework's code, ``tests/`` for the tests the patch adds); ``--strip`` removes a prefix
from every path first (a repository's ``src/`` is not in the wheel). ``patch`` is run
with ``--dry-run`` first, so a patch that no longer applies changes nothing and exits 1
with patch's own words. ``--check`` stops after that dry run; ``--applied`` checks that the
patch is already applied (its reverse applies).
"""

from __future__ import annotations

import argparse
import itertools
import re
import subprocess
import sys
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("patch", type=Path)
    parser.add_argument("root", type=Path)
    parser.add_argument("--only", default="")
    parser.add_argument("--strip", default="")
    parser.add_argument("--check", action="store_true", help="dry run only")
    parser.add_argument("--applied", action="store_true", help="check it is applied")
    args = parser.parse_args(argv)
    diff = mapped(args.patch.read_text(), args.only, args.strip)
    if args.applied:
        done = _patch(args.root, diff, "--reverse", "--dry-run")
        print(f"{args.patch.name}: {'applied' if done.returncode == 0 else 'NOT applied'}")
        return 0 if done.returncode == 0 else 1
    dry = _patch(args.root, diff, "--dry-run")
    if dry.returncode != 0:
        print(f"{args.patch.name} does not apply to {args.root}:\n{dry.stdout}{dry.stderr}")
        return 1
    if args.check:
        print(f"{args.patch.name} applies to {args.root}")
        return 0
    done = _patch(args.root, diff)
    print(done.stdout, end="")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
