"""Write files atomically: a reader (or a killed run) sees the old file or the new one, never half.

Each writer fills a temporary file in the target's directory (same file system,
so the final rename is atomic), flushes and fsyncs it, then ``os.replace``-s it
over the target and fsyncs the directory so the rename itself survives a crash.
On any error the temporary file is removed and the target is left untouched.

Use :func:`write_text`, :func:`write_bytes` or :func:`write_json` for data in
memory, :func:`atomic_open` for a writer that streams into a file object, and
:func:`atomic_path` for a library that insists on writing to a path itself
(``matplotlib.savefig``): the temporary path keeps the target's suffix.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

# The process umask, read once: mkstemp creates files 0600, and a dataset or a report
# should get the permissions an ordinary open() would have given it.
_UMASK = os.umask(0o022)
os.umask(_UMASK)

PathLike = str | os.PathLike[str]


def _fsync_dir(directory: Path) -> None:
    # Best effort: some file systems (and Windows) cannot open a directory for fsync.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _final_mode(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777  # keep an existing file's permissions
    except FileNotFoundError:
        return 0o666 & ~_UMASK


@contextlib.contextmanager
def atomic_path(path: PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on a clean exit it becomes ``path`` atomically.

    The temporary name keeps ``path``'s suffix, so tools that pick a format from it work.
    The caller must have closed the file by the end of the block.
    """
    target = Path(path)
    directory = target.parent
    fd, tmp_name = tempfile.mkstemp(
        dir=directory, prefix=f".{target.name}.", suffix=f".tmp{target.suffix}"
    )
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb+") as f:  # a path-writing library may not have fsynced
            os.fsync(f.fileno())
        os.chmod(tmp, _final_mode(target))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_dir(directory)


@contextlib.contextmanager
def atomic_open(
    path: PathLike, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None
) -> Iterator[IO[Any]]:
    """Open a temporary file for writing; on a clean exit it replaces ``path`` atomically.

    ``mode`` is ``"w"`` (text) or ``"wb"`` (bytes). If the block raises, ``path`` is untouched.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open: mode must be 'w' or 'wb', got {mode!r}")
    binary = mode == "wb"
    with atomic_path(path) as tmp:
        kwargs = {} if binary else {"encoding": encoding, "newline": newline}
        with open(tmp, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())


def write_bytes(path: PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; return the path."""
    with atomic_open(path, "wb") as f:
        f.write(data)
    return Path(path)


def write_text(path: PathLike, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (no newline translation); return the path."""
    with atomic_open(path, "w", encoding=encoding, newline="") as f:
        f.write(text)
    return Path(path)


def write_json(path: PathLike, obj: Any, *, indent: int | None = 2, **dumps_kwargs: Any) -> Path:
    """Write ``obj`` as JSON (strict: NaN and inf are errors) plus a newline, atomically.

    The text is built before the file is touched, so an object that cannot be
    written leaves ``path`` as it was.
    """
    dumps_kwargs.setdefault("allow_nan", False)
    text = json.dumps(obj, indent=indent, **dumps_kwargs) + "\n"
    return write_text(path, text)
