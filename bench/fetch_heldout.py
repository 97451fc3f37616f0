"""Download, check and unpack a held-out set of benchmark targets, pinned in a TSV file.

Usage: python bench/fetch_heldout.py [--pins FILE] [DEST]   (DEST default: bench-targets-heldout).
Idempotent.

FILE is the set's pins (default bench/heldout_targets.tsv, the first held-out set):
bench/heldout2_targets.tsv is the second, chosen after the first was measured and studied;
fetch it into a DEST of its own, e.g. ``--pins bench/heldout2_targets.tsv bench-targets-heldout2``.
bench/heldout3_targets.tsv is the third, chosen after the first two were measured and studied;
fetch it the same way, e.g. ``--pins bench/heldout3_targets.tsv bench-targets-heldout3``.
bench/heldout4_targets.tsv is the fourth, chosen after the first three were measured and studied,
before the generator changed again: ``--pins bench/heldout4_targets.tsv bench-targets-heldout4``.
bench/heldout5_targets.tsv is the fifth, chosen after the first four were measured and studied,
before the generator changed again: ``--pins bench/heldout5_targets.tsv bench-targets-heldout5``.
bench/heldout6_targets.tsv is the sixth, chosen after the first five were measured and studied,
before the generator changed again: ``--pins bench/heldout6_targets.tsv bench-targets-heldout6``.
bench/heldout7_targets.tsv is the seventh, chosen after the first six were measured and studied:
``--pins bench/heldout7_targets.tsv bench-targets-heldout7``.
bench/heldout8_targets.tsv is the eighth, chosen after the first seven were measured and studied:
``--pins bench/heldout8_targets.tsv bench-targets-heldout8``.
bench/heldout9_targets.tsv is the ninth, chosen after the first eight were measured and studied:
``--pins bench/heldout9_targets.tsv bench-targets-heldout9``.
bench/heldout10_targets.tsv is the tenth, chosen after the first nine were measured and studied:
``--pins bench/heldout10_targets.tsv bench-targets-heldout10``.
bench/heldout11_targets.tsv is the eleventh, chosen after the first ten were measured and studied:
``--pins bench/heldout11_targets.tsv bench-targets-heldout11``.
bench/heldout12_targets.tsv is the twelfth, chosen after the first eleven were measured and studied:
``--pins bench/heldout12_targets.tsv bench-targets-heldout12``.
bench/heldout13_targets.tsv is the thirteenth, chosen after the first twelve were measured and
studied: ``--pins bench/heldout13_targets.tsv bench-targets-heldout13``.
bench/heldout14_targets.tsv is the fourteenth, chosen after the first thirteen were measured and
studied: ``--pins bench/heldout14_targets.tsv bench-targets-heldout14``.
bench/heldout15_targets.tsv is the fifteenth, chosen after the first fourteen were measured and
studied: ``--pins bench/heldout15_targets.tsv bench-targets-heldout15``.
bench/heldout16_targets.tsv is the sixteenth, chosen after the first fifteen were measured and
studied: ``--pins bench/heldout16_targets.tsv bench-targets-heldout16``.
bench/heldout17_targets.tsv is the seventeenth, chosen after the first sixteen were measured and
studied: ``--pins bench/heldout17_targets.tsv bench-targets-heldout17``.
bench/heldout18_targets.tsv is the eighteenth (eight modules), chosen after the first seventeen
were measured and studied: ``--pins bench/heldout18_targets.tsv bench-targets-heldout18``.
bench/heldout19_targets.tsv is the nineteenth, chosen after the first eighteen were measured and
studied: ``--pins bench/heldout19_targets.tsv bench-targets-heldout19``.
bench/heldout20_targets.tsv is the twentieth, chosen after the first nineteen were measured and
studied: ``--pins bench/heldout20_targets.tsv bench-targets-heldout20``.
bench/heldout21_targets.tsv is the twenty-first, chosen after the first twenty were measured and
studied: ``--pins bench/heldout21_targets.tsv bench-targets-heldout21``.
bench/heldout22_targets.tsv is the twenty-second, chosen after the first twenty-one were measured
and studied: ``--pins bench/heldout22_targets.tsv bench-targets-heldout22``.
bench/heldout23_targets.tsv is the twenty-third, chosen after the first twenty-two were measured
and studied: ``--pins bench/heldout23_targets.tsv bench-targets-heldout23``.
bench/heldout24_targets.tsv is the twenty-fourth, chosen after the first twenty-three were measured
and studied: ``--pins bench/heldout24_targets.tsv bench-targets-heldout24``.
bench/heldout25_targets.tsv is the twenty-fifth, chosen after the first twenty-four were measured
and studied: ``--pins bench/heldout25_targets.tsv bench-targets-heldout25``.

Each pinned sdist is fetched with this interpreter's pip into DEST/sdist (kept when its sha256
already matches), checked against its pin and unpacked into DEST/src. Then DEST/targets.tsv is
written in the format ../shared/bench/fetch_targets.sh writes (id, unpacked dir (absolute),
pythonpath, module, upstream tests), so ``python bench/builtin_vs_pynguin.py --targets DEST``
reads it. These modules were never tuned on: measure with them, do not tune on them.

Exit status: 0 when every target is in place, 2 on a sha256 mismatch, 1 on any other error.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

PINS = Path(__file__).with_name("heldout_targets.tsv")
COLUMNS = 8  # id, pip_spec, sha256, sdist_file, unpacked_dir, pythonpath, module, upstream_tests
HEADER = "# id\tdir\tpythonpath\tmodule\tupstream_tests"
SHA_MISMATCH = 2


class FetchError(Exception):
    """A step failed; the message is one line."""


class ShaMismatch(FetchError):
    """A downloaded sdist is not the pinned one."""


@dataclass(frozen=True)
class Pin:
    """One row of a pins file (heldout_targets.tsv, heldout2_targets.tsv)."""

    id: str
    spec: str
    sha256: str
    sdist: str
    unpacked: str
    pythonpath: str
    module: str
    tests: str


def read_pins(path: Path) -> list[Pin]:
    """The pinned targets, in file order; comment and blank lines are skipped."""
    pins = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != COLUMNS:
            raise FetchError(f"{path}:{number}: {len(fields)} columns, expected {COLUMNS}")
        pins.append(Pin(*fields))
    if not pins:
        raise FetchError(f"{path}: no targets")
    return pins


def sha256_of(path: Path) -> str:
    """The file's sha256, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def pip_download(spec: str, into: Path) -> None:
    """The sdist of ``spec`` (no dependencies, no wheels) into ``into`` with this Python's pip.

    Without build isolation first (no backend sdists to fetch when the build backend is
    installed here), then with it.
    """
    command = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check"]
    command += ["--no-deps", "--no-binary", ":all:", "-d", str(into), spec]
    for extra in (["--no-build-isolation"], []):
        proc = subprocess.run([*command, *extra], capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            return
    lines = [line for line in proc.stderr.splitlines() if line.startswith("ERROR")]
    last = (lines or proc.stderr.strip().splitlines() or ["no output"])[-1]
    raise FetchError(f"pip download {spec} failed: {last.strip()}")


def fetch(pin: Pin, sdists: Path) -> Path:
    """The pinned sdist in ``sdists``, downloaded unless a copy with the right sha256 is there."""
    archive = sdists / pin.sdist
    if archive.is_file() and sha256_of(archive) == pin.sha256:
        return archive
    archive.unlink(missing_ok=True)
    pip_download(pin.spec, sdists)
    if not archive.is_file():
        raise FetchError(f"pip download {pin.spec} did not write {archive}")
    actual = sha256_of(archive)
    if actual != pin.sha256:
        raise ShaMismatch(f"sha256 mismatch: {archive}: expected {pin.sha256}, got {actual}")
    return archive


def safe_members(archive: Path, tar: tarfile.TarFile, top: str) -> list[tarfile.TarInfo]:
    """The members of ``archive`` (open as ``tar``): regular files or dirs under ``top``."""
    members = tar.getmembers()
    for member in members:
        parts = Path(member.name).parts
        if not parts or parts[0] != top or ".." in parts or Path(member.name).is_absolute():
            raise FetchError(f"{archive}: unexpected member {member.name!r} (not under {top}/)")
        if not (member.isfile() or member.isdir()):
            raise FetchError(f"{archive}: member {member.name!r} is not a file or directory")
    return members


def unpack(pin: Pin, archive: Path, src: Path) -> Path:
    """``src/<unpacked_dir>``, extracted from ``archive`` unless it is already there.

    The archive is unpacked into a temporary dir in ``src`` and then moved in place, so an
    interrupted run leaves no half-unpacked dir behind.
    """
    target = src / pin.unpacked
    if not target.is_dir():
        with (
            tempfile.TemporaryDirectory(dir=src, prefix=".unpack-") as tmp,
            tarfile.open(archive) as tar,
        ):
            members = safe_members(archive, tar, pin.unpacked)
            if hasattr(tarfile, "data_filter"):
                tar.extractall(tmp, members=members, filter="data")
            else:  # Python 3.10 before 3.10.12: the members were checked above.
                tar.extractall(tmp, members=members)
            Path(tmp, pin.unpacked).rename(target)
    for relative in (pin.module, pin.tests):
        if not (target / relative).is_file():
            raise FetchError(f"{target}: no {relative}")
    return target


def write_targets(rows: list[tuple[Pin, Path]], out: Path) -> None:
    """DEST/targets.tsv, the way fetch_targets.sh writes it; replaced whole, never half written."""
    lines = [HEADER]
    lines += ["\t".join((pin.id, str(d), pin.pythonpath, pin.module, pin.tests)) for pin, d in rows]
    partial = out.with_suffix(".tsv.partial")
    partial.write_text("\n".join(lines) + "\n")
    partial.replace(out)


def show(out: Path) -> None:
    """targets.tsv as aligned columns."""
    table = [line.split("\t") for line in out.read_text().splitlines()]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        print("  ".join(cells).rstrip())


def parse_args(argv: list[str]) -> tuple[Path, str] | None:
    """The pins file and DEST from ``[--pins FILE] [DEST]``; None when they do not parse.

    Hand-rolled rather than argparse, whose usage errors would exit 2, the sha256 mismatch status.
    """
    pins, dests = PINS, []
    args = iter(argv)
    for arg in args:
        if arg == "--pins":
            value = next(args, "")
        elif arg.startswith("--pins="):
            value = arg.removeprefix("--pins=")
        elif arg.startswith("-"):
            return None
        else:
            dests.append(arg)
            continue
        if not value:
            return None
        pins = Path(value)
    if len(dests) > 1:
        return None
    return pins, dests[0] if dests else "bench-targets-heldout"


def main(argv: list[str]) -> int:
    """Fetch every target pinned in the pins file into DEST; the exit status."""
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    parsed = parse_args(argv)
    if parsed is None:
        print("usage: python bench/fetch_heldout.py [--pins FILE] [DEST]", file=sys.stderr)
        return 1
    pins_file, dest_arg = parsed
    dest = Path(dest_arg).resolve()
    sdists, src = dest / "sdist", dest / "src"
    try:
        pins = read_pins(pins_file)
        sdists.mkdir(parents=True, exist_ok=True)
        src.mkdir(parents=True, exist_ok=True)
        rows = [(pin, unpack(pin, fetch(pin, sdists), src)) for pin in pins]
        write_targets(rows, dest / "targets.tsv")
    except ShaMismatch as error:
        print(f"error: {error}", file=sys.stderr)
        return SHA_MISMATCH
    except (FetchError, OSError, tarfile.TarError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    show(dest / "targets.tsv")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
