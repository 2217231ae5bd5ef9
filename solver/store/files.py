"""Files from and to the outside, written so that nothing is ever half written and read so that
nothing is ever trusted.

* `atomic_write_files([(path, data or write), ...])`: each file first to a temporary file
  `.<name>.<pid>.tmp` in the same folder (mode 0666 less the umask, as any new file), flushed and
  fsynced, then all renamed over their paths (and the folders fsynced): a reader sees the old file or
  the new one, never a part. Temporary files left by dead processes (SIGKILL, power loss) are removed
  on the next write to the same name. Every file the program writes goes through here.
* `writable_target(path, what)`: a write lands only in a regular file or under a new name. A device,
  FIFO, socket or folder is refused (the rename would put a regular file where `/dev/null` was); a
  symlink is written through: the file it points to is replaced and the link stays a link (to a
  device or the like: refused as that).
* `open_regular(path, limit, what, error)`: every file from outside is opened here: a regular file
  (opened with O_NONBLOCK, so a FIFO is refused rather than waited on) of at most `limit` bytes
  (checked before reading: a sparse 5 GB file or /dev/zero behind a symlink is never read).
* `no_interrupts()`: Ctrl-C (SIGINT) and `kill` (SIGTERM) while inside are held back, and delivered
  when the block ends, so a pair of files (a table and its sidecar) is written as a unit.
* `read_json(path, limit, what, error, fix)`: a bounded read and a parse that turns every failure
  (too big, not UTF-8, not JSON, nested too deeply) into one `error`, never another exception.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ..errors import KniffelError
from ..i18n.texts import count_text, os_reason, t

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


def fsync_folder(folder: Path) -> None:
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


def writable_target(path: Path, what: str) -> Path:
    """The file a write to `path` replaces: `path` itself when it is a regular file or new, through a
    symlink the file it points to (the link stays a link). Anything else (a device, FIFO, socket, folder,
    or a link to one) is refused: the rename would put a regular file where it was."""
    real = Path(os.path.realpath(path))
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return real  # new (or unreachable: the write itself then names why)
    if not stat.S_ISREG(mode):
        raise KniffelError(t("out_not_regular", what=what, path=path, kind=_kind(mode)))
    return real


def atomic_write_files(items: list[tuple[Path, bytes | Callable[[IO[bytes]], Any]]]) -> None:
    """Files given as bytes or as `write(file)`: every temp file written and fsynced first, then renamed
    in the given order, SIGINT and SIGTERM held back meanwhile (no_interrupts). A process killed between two
    renames anyway (SIGKILL) leaves the later files complete as temp files, so a reader can finish the job
    (tables.load does, for a table's sidecar)."""
    targets = [writable_target(Path(path), t("word_file")) for path, _ in items]
    temps: list[Path] = []
    try:
        for (path, data), target in zip(items, targets):
            remove_stale_temps(target)
            temps.append(temp_path(target))
            with naming_failures("write", path), open(temps[-1], "wb") as fh:  # 0666 less the umask
                if isinstance(data, bytes):
                    fh.write(data)
                else:
                    data(fh)
                fh.flush()
                os.fsync(fh.fileno())
        with no_interrupts():  # the renames as one step: a Ctrl-C or kill between two would pair new and old files
            for (path, _), target, tmp in zip(items, targets, temps):
                with naming_failures("write", path):
                    os.replace(tmp, target)
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
    for folder in {target.parent for target in targets}:
        fsync_folder(folder)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    atomic_write_files([(path, data)])


STOPS = (signal.SIGINT, signal.SIGTERM)  # Ctrl-C and kill: what stops a command, held or ignored as one


@contextmanager
def no_interrupts() -> Iterator[None]:
    """Hold back SIGINT and SIGTERM until the block ends, then deliver them as they would have been (Ctrl-C's
    KeyboardInterrupt; a job's `kill` handler, or SIGTERM's default end). Main thread only; elsewhere signals
    go to the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum, frame):
        caught.append(signum)

    try:
        previous = {sig: signal.signal(sig, hold) for sig in STOPS}
    except ValueError:  # no signals here (an embedded interpreter): nothing to hold back
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    for signum in dict.fromkeys(caught):
        signal.raise_signal(signum)


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return t("kind_folder")
    if stat.S_ISFIFO(mode):
        return t("kind_fifo")
    if stat.S_ISSOCK(mode):
        return t("kind_socket")
    return t("kind_device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "kind_other")


class NotRegularFile(OSError):
    """Something else than a regular file at a path (a FIFO, a folder, a device, a socket); `mode`: its st_mode."""

    def __init__(self, path: Path, mode: int):
        super().__init__(f"{path}: not a regular file")
        self.mode = mode


def regular_fd(path: Path, flags: int = os.O_RDONLY, mode: int = 0o666) -> int:
    """A descriptor of the regular file at `path`; NotRegularFile when something else is there, the OSError of
    os.open otherwise (FileNotFoundError when missing). O_NONBLOCK: a FIFO opens at once (and is refused)
    instead of waiting for a writer for ever."""
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except FileNotFoundError:
        raise
    except OSError:
        try:  # a socket cannot be opened at all (ENXIO): say what it is
            found = os.stat(path).st_mode
        except OSError:
            found = stat.S_IFREG
        if not stat.S_ISREG(found):
            raise NotRegularFile(path, found) from None
        raise
    found = os.fstat(fd).st_mode
    if not stat.S_ISREG(found):
        os.close(fd)
        raise NotRegularFile(path, found)
    return fd


@contextmanager
def open_regular(path: Path, limit: int, what: str, error: type[KniffelError]) -> Iterator[io.FileIO]:
    """`path` opened for reading when it is a regular file of at most `limit` bytes (regular_fd), else
    `error` naming it."""
    try:
        fd = regular_fd(path)
    except NotRegularFile as exc:
        raise error(t("file_not_regular", what=what, path=path, kind=_kind(exc.mode))) from None
    except OSError as exc:
        raise error(t("file_unreadable", what=what, path=path, error=os_reason(exc))) from None
    if os.fstat(fd).st_size > limit:
        os.close(fd)
        raise error(t("file_too_large", what=what, path=path, limit=count_text(limit)))
    with os.fdopen(fd, "rb", buffering=0) as fh:
        yield fh


def read_bounded(path: Path, limit: int, what: str, error: type[KniffelError]) -> bytearray:
    """The bytes of a regular file of at most `limit` bytes (open_regular), else `error` naming the file.
    One read into one buffer (a 22 MB table costs what np.load costs)."""
    with open_regular(path, limit, what, error) as fh:
        try:
            data = bytearray(os.fstat(fh.fileno()).st_size + 1)
            n = fh.readinto(data) or 0
            del data[n:]
            while len(data) <= limit:  # a file may grow while it is read
                more = fh.read(limit + 1 - len(data))
                if not more:
                    break
                data += more
        except OSError as exc:
            raise error(t("file_unreadable", what=what, path=path, error=os_reason(exc))) from None
    if len(data) > limit:
        raise error(t("file_too_large", what=what, path=path, limit=count_text(limit)))
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
    except json.JSONDecodeError as exc:  # where, not the parser's English words
        raise error(t("file_not_json", where=where, line=exc.lineno, column=exc.colno)) from None
    except ValueError:  # an integer of more digits than Python reads (sys.get_int_max_str_digits)
        raise error(t("file_number_too_long", where=where, digits=count_text(sys.get_int_max_str_digits()))) from None


def read_json(path: Path, limit: int, what: str, error: type[KniffelError], fix: str = "") -> Any:
    """read_bounded + parse_json; `fix`, when given, ends the error's message (what the player can do)."""
    try:
        return parse_json(read_bounded(path, limit, what, error), f"{what} {path}", error)
    except error as exc:
        if not fix:
            raise
        raise error(f"{exc}; {fix_for(path, fix)}") from None


def fix_for(path: Path, fix: str) -> str:
    """The fix of a file's error, after moving away what is at `path` when that is no regular file (a FIFO, a
    folder): the command the fix names never writes over such a thing."""
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return fix
    return fix if regular else t("fix_move_away", fix=fix)


def check_writable_file(path: Path, what: str) -> None:
    """Refuse up front an output path that cannot be written (before any long work)."""
    real = writable_target(Path(path), what)
    if not real.parent.is_dir():
        raise KniffelError(t("out_no_folder", what=what, path=path, folder=real.parent))
    if not os.access(real.parent, os.W_OK | os.X_OK):
        raise KniffelError(t("out_folder_readonly", what=what, path=path, folder=real.parent))
    if real.exists() and not os.access(real, os.W_OK):
        raise KniffelError(t("out_readonly", what=what, path=path))
