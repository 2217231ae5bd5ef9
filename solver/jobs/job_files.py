"""The job folder's files, read and written safely: only regular files are opened (a FIFO in a file's place
never makes a reader wait), writes are atomic and hashed as they go, .npy headers as np.save writes them."""

from __future__ import annotations

import hashlib
import io
import os
import socket
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..store.files import NotRegularFile, fsync_folder, regular_fd

BLOCK = 16 << 20  # bytes a read when a rerun checks a layer or a chunk


def reader(path: Path):
    """path opened for reading (buffered) when it is a regular file (store.files.regular_fd)."""
    return os.fdopen(regular_fd(path), "rb")


def read_mark(path: Path) -> str:
    """A chunk's mark: the SHA-256 it recorded (at most a line; a longer file is not a mark)."""
    with reader(path) as fh:
        return fh.read(256).decode("ascii", "replace").strip()


def save_atomic(path: Path, data: np.ndarray | bytes, durable: bool = True) -> str:
    """Write an array (as np.save writes it) or bytes to `path` atomically; the SHA-256 of the bytes written."""
    if isinstance(data, bytes):
        return write_atomic(path, [data], durable)
    data = np.asarray(data)
    raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)  # also an empty or 0-d array, as np.save takes it
    return write_atomic(path, [npy_header(data.shape, data.dtype), raw], durable)


def write_atomic(path: Path, pieces: Iterable, durable: bool = True) -> str:
    """Write the pieces (buffers) one after another to `path` atomically: a temporary file named for this host
    and process in the same folder, renamed into place (durable: fsynced before, its folder after). Each byte
    is hashed as it is written, never read back. Returns the SHA-256 of the file."""
    tmp = path.with_name(f".{path.name}.{socket.gethostname()}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as fh:
            for piece in pieces:
                fh.write(piece)
                digest.update(piece)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    if durable:
        fsync_folder(path.parent)
    return digest.hexdigest()


def npy_header(shape: tuple, dtype: np.dtype) -> bytes:
    """The header np.save writes before a C-ordered array of this shape and type."""
    out = io.BytesIO()
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(out, header)
    return out.getvalue()


def npy_shape(fh) -> tuple[tuple, np.dtype]:
    """The shape and type of the .npy file open in fh (left at its data); ValueError unless as we write them."""
    if np.lib.format.read_magic(fh) != (1, 0):
        raise ValueError("not a .npy file of version 1.0")
    shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(fh)
    if fortran_order:
        raise ValueError("Fortran order")
    return shape, dtype


def pwrite_all(fd: int, data: np.ndarray, offset: int) -> None:
    """Write all of data's bytes at `offset` (os.pwrite may write fewer than asked)."""
    view = data.reshape(-1).view(np.uint8).data
    done = 0
    while done < len(view):
        done += os.pwrite(fd, view[done:], offset + done)


def range_digest(fh, nbytes: int) -> str | None:
    """The SHA-256 of the next `nbytes` bytes of fh, None when the file ends before."""
    digest = hashlib.sha256()
    while nbytes:
        block = fh.read(min(nbytes, BLOCK))
        if not block:
            return None
        digest.update(block)
        nbytes -= len(block)
    return digest.hexdigest()


def layer_digest(header: bytes, chunks: list[str]) -> str:
    """A layer's checksum: the SHA-256 of its header and its chunks' SHA-256s, one after another."""
    return hashlib.sha256(header + b"".join(bytes.fromhex(d) for d in chunks)).hexdigest()


def hash_file(path: Path):
    digest = hashlib.sha256()
    with reader(path) as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest


def file_sha256(path: Path) -> str | None:
    """The file's SHA-256, None when it is missing or not a regular file."""
    try:
        return hash_file(path).hexdigest()
    except (FileNotFoundError, NotRegularFile):
        return None
