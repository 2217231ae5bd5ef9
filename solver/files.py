"""Files from and to the outside, written so that nothing is ever half written and read so that
nothing is ever trusted.

* `atomic_write(path, write)`: a temporary file `.<name>.<pid>.tmp` in the same folder, flushed
  and fsynced, then renamed over `path` (and the folder fsynced): a reader sees the old file or
  the new one, never a part. Temporary files left by dead processes (SIGKILL, power loss) are
  removed on the next write to the same name.
* `no_interrupts()`: Ctrl-C (SIGINT) while inside is held back and raised as KeyboardInterrupt
  when the block ends, so a pair of files (a table and its sidecar) is written as a unit.
* `read_json(path, limit, what, error)`: a bounded read and a parse that turns every failure
  (too big, not UTF-8, not JSON, nested too deeply) into one `error`, never another exception.
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from .errors import KniffelError
from .texts import os_reason, t

_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.tmp$")


class FileOperationError(OSError):
    """An OSError that names what was being done ('write', 'read', 'create_folder') and the file the
    player knows (not its temporary file); the CLI shows it as one line in the player's language."""

    def __init__(self, operation: str, path: Path, cause: OSError):
        super().__init__(cause.errno, cause.strerror or str(cause), str(path))
        self.operation = operation


@contextmanager
def naming_failures(operation: str, path: Path) -> Iterator[None]:
    """Any OSError inside becomes a FileOperationError naming `operation` and `path`."""
    try:
        yield
    except FileOperationError:
        raise
    except OSError as exc:
        raise FileOperationError(operation, path, exc) from exc


def make_folder(folder: Path) -> None:
    """mkdir -p, its failure naming the folder."""
    with naming_failures("create_folder", folder):
        Path(folder).mkdir(parents=True, exist_ok=True)


def temp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):  # someone else's process, or not a pid
        return True
    return True


def stale_temps(path: Path) -> list[Path]:
    """Temporary files for `path` left behind by processes that no longer run."""
    found = []
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return []
    for entry in entries:
        m = _TEMP.match(entry.name)
        if m and m["name"] == path.name and int(m["pid"]) != os.getpid() and not _alive(int(m["pid"])):
            found.append(entry)
    return found


def remove_stale_temps(path: Path) -> None:
    for entry in stale_temps(path):
        try:
            entry.unlink()
        except OSError:
            pass  # another process cleaned it first, or the folder is read-only: harmless


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not every system can open a folder: the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, write: Callable[[IO[bytes]], Any]) -> None:
    """Write `path` through `write(file)` atomically: temp file, fsync, rename."""
    path = Path(path)
    remove_stale_temps(path)
    tmp = temp_path(path)
    try:
        with naming_failures("write", path):
            with open(tmp, "wb") as fh:
                write(fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    atomic_write(path, lambda fh: fh.write(data))


def atomic_write_files(items: list[tuple[Path, bytes]]) -> None:
    """Several files: every temp file written and fsynced first, then renamed in the given order.
    A process killed between two renames leaves the later files complete as temp files, so a
    reader can finish the job (tables.load does, for a table's sidecar)."""
    temps = []
    try:
        for path, data in items:
            remove_stale_temps(Path(path))
            tmp = temp_path(Path(path))
            temps.append(tmp)
            with naming_failures("write", path), open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        for (path, _), tmp in zip(items, temps):
            with naming_failures("write", path):
                os.replace(tmp, path)
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
    for folder in {Path(path).parent for path, _ in items}:
        _fsync_folder(folder)


@contextmanager
def no_interrupts() -> Iterator[None]:
    """Hold back SIGINT until the block ends (main thread only; elsewhere signals go to the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum, frame):
        caught.append(signum)

    try:
        previous = signal.signal(signal.SIGINT, hold)
    except ValueError:  # no signals here (an embedded interpreter): nothing to hold back
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def read_bounded(path: Path, limit: int, what: str, error: type[KniffelError]) -> bytearray:
    """The bytes of a file of at most `limit` bytes, else `error` naming the file. One read into one
    buffer (a 22 MB table costs what np.load costs)."""
    try:
        with open(path, "rb", buffering=0) as fh:
            size = os.fstat(fh.fileno()).st_size  # a guide only: a device says 0, a file may grow
            if size > limit:
                raise error(t("file_too_large", what=what, path=path, limit=f"{limit:,}"))
            data = bytearray(size + 1)
            n = fh.readinto(data) or 0
            del data[n:]
            while len(data) <= limit:
                more = fh.read(limit + 1 - len(data))
                if not more:
                    break
                data += more
    except IsADirectoryError:
        raise error(t("file_is_folder", what=what, path=path)) from None
    except OSError as exc:
        raise error(t("file_unreadable", what=what, path=path, error=os_reason(exc))) from None
    if len(data) > limit:
        raise error(t("file_too_large", what=what, path=path, limit=f"{limit:,}"))
    return data


def parse_json(data: bytes | bytearray, where: str, error: type[KniffelError]) -> Any:
    """JSON from untrusted bytes: any failure is `error`, never another exception."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(t("file_not_text", where=where)) from None
    try:
        return json.loads(text)
    except RecursionError:
        raise error(t("file_nested", where=where)) from None
    except ValueError as exc:
        raise error(t("file_not_json", where=where, error=exc)) from None


def read_json(path: Path, limit: int, what: str, error: type[KniffelError]) -> Any:
    return parse_json(read_bounded(path, limit, what, error), f"{what} {path}", error)


def check_writable_file(path: Path, what: str) -> None:
    """Refuse up front an output path that cannot be written (before any long work)."""
    path = Path(path)
    if path.is_dir():
        raise KniffelError(t("out_is_folder", what=what, path=path))
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise KniffelError(t("out_no_folder", what=what, path=path, folder=folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise KniffelError(t("out_folder_readonly", what=what, path=path, folder=folder))
    if path.exists() and not os.access(path, os.W_OK):
        raise KniffelError(t("out_readonly", what=what, path=path))
