"""A target table file changed after a long-lived holder loaded it (memory-mapped: an API Table, the web
server). Rewritten in place by another tool (cp onto it, rsync --inplace), its new bytes would be read through
the mapping without a checksum, and a truncated file would kill the process with SIGBUS. Each use checks the
file's identity (size, inode, mtime, ctime) and loads it again, verified, when it has changed: the same bytes
answer as before, anything else is one TargetTableError (HTTP 409), never a changed answer or a dead process."""

import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
from starlette.testclient import TestClient

import solver
from solver.store.target_tables import TargetTableError, target_paths
from solver.web.app import create_app

CHANCES = {"variant": "generala", "card": "", "target": 200}


@pytest.fixture(scope="module")
def original(tables_of, tmp_path_factory):
    """generala's value tables and its target table (built here, a few seconds), to copy from."""
    folder = tmp_path_factory.mktemp("generala-target")
    for path in tables_of("generala").glob("generala*"):
        shutil.copy(path, folder)
    solver.load("generala", tables_dir=folder, solve=False).chances("", 200, progress=False)
    return folder


@pytest.fixture
def folder(original, tmp_path):
    for path in original.glob("generala*"):
        shutil.copy(path, tmp_path)
    return tmp_path


def rewrite_in_place(npy, data: bytes) -> None:
    """What `cp` onto an existing file does: the same inode, new bytes (after a pause: a file's times tick)."""
    time.sleep(0.02)
    with open(npy, "r+b") as fh:
        fh.write(data)
        fh.truncate()


def last_value_changed(data: bytes) -> bytes:
    return data[:-8] + np.float64(0.5).tobytes()


def test_the_api_verifies_a_changed_file_again(folder):
    table = solver.load("generala", tables_dir=folder, solve=False)
    first = table.chances("", 200, build=False)
    advice = table.advise_target("", "11234", 1, 200, build=False).as_dict(all_options=True)
    npy = target_paths(table.variant, folder)[0]
    data = npy.read_bytes()

    rewrite_in_place(npy, data)  # the same bytes again: verified again, the same answers
    assert table.chances("", 200, build=False) == first
    assert table.advise_target("", "11234", 1, 200, build=False).as_dict(all_options=True) == advice

    rewrite_in_place(npy, last_value_changed(data))
    for ask in (lambda: table.chances("", 200, build=False), lambda: table.advise_target("", "66665", 2, 200)):
        with pytest.raises(TargetTableError, match="checksum") as err:
            ask()
        assert str(npy) in str(err.value) and "\n" not in str(err.value)

    rewrite_in_place(npy, data)  # put back: answered again, never built (build=True would have)
    assert table.chances("", 200) == first
    (folder / "copy").write_bytes(data)
    os.replace(folder / "copy", npy)  # replaced as `kniffel solve --target` does: the new file is loaded
    assert table.chances("", 200, build=False) == first
    assert table._target_tables[0].file[1][1] == npy.stat().st_ino


def test_a_file_rewritten_while_it_is_loaded_is_refused(folder, monkeypatch):
    """Between the checksum (or its stamp) and the mapping: the identity taken before is checked after."""
    from solver.store import target_tables

    verified = target_tables._verified
    npy = folder / "generala.target.npy"

    def verified_then_rewritten(*args):
        answer = verified(*args)
        rewrite_in_place(npy, last_value_changed(npy.read_bytes()))
        return answer

    monkeypatch.setattr(target_tables, "_verified", verified_then_rewritten)
    with pytest.raises(TargetTableError, match="changed on disk while it was read"):
        solver.load("generala", tables_dir=folder, solve=False).chances("", 200, build=False)


def test_the_server_verifies_a_changed_file_again(folder):
    npy = folder / "generala.target.npy"
    data = npy.read_bytes()
    with TestClient(create_app(folder, solve_missing=False)) as client:
        first = client.get("/api/chances", params=CHANCES)
        assert first.status_code == 200
        rewrite_in_place(npy, last_value_changed(data))
        res = client.get("/api/chances", params=CHANCES)
        assert res.status_code == 409 and "checksum" in res.json()["error"]
        res = client.get("/api/advise", params={**CHANCES, "dice": "11234", "roll": 1})
        assert res.status_code == 409 and str(npy) in res.json()["error"]
        rewrite_in_place(npy, data)
        again = client.get("/api/chances", params=CHANCES)
        assert again.status_code == 200 and again.json() == first.json()


CHILD = """
import os, sys, solver
table = solver.load("generala", tables_dir=sys.argv[1], solve=False)
print(table.chances("", 200, build=False).probability, flush=True)
os.truncate(sys.argv[2], 1000)
try:
    table.chances("", 180, build=False)
except solver.KniffelError as exc:
    print(exc)
"""


def test_a_truncated_file_is_refused_not_a_bus_error(folder):
    """Reading a truncated mapping is SIGBUS, which no try/except catches: hence a child process."""
    npy = folder / "generala.target.npy"
    res = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), str(npy)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LANGUAGE": "", "LC_ALL": "C.UTF-8"},
    )
    assert res.returncode == 0, res.stderr
    probability, message = res.stdout.splitlines()
    assert 0.1 < float(probability) < 0.3
    assert str(npy) in message and "kniffel solve generala --target" in message
