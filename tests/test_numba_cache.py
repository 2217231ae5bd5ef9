"""The Numba cache folder: a child process of a kniffel process (a test's subprocess, an xdist worker)
reuses the folder its parent chose, so that kernels compiled by one are loaded by the other."""

import os
import subprocess
import sys

import pytest

from solver import numba_setup


def test_a_child_process_reuses_the_chosen_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    chosen = numba_setup._choose_cache_dir()
    assert chosen == str(tmp_path / f"numba-{numba_setup.kernel_hash()}")
    monkeypatch.setenv("NUMBA_CACHE_DIR", chosen)  # what configure() leaves to a child process
    assert numba_setup._choose_cache_dir() == chosen


def test_a_folder_of_other_kernels_gets_a_subfolder(monkeypatch, tmp_path):
    other = tmp_path / "numba-0000000000000000"  # kernels of another version of the sources
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(other))
    assert numba_setup._choose_cache_dir() == str(other / f"numba-{numba_setup.kernel_hash()}")


@pytest.mark.parametrize(
    "locale, env, words",
    [
        ("fr_FR.UTF-8", {"NUMBA_NUM_THREADS": "abc"}, "NUMBA_NUM_THREADS='abc' est ignoré"),
        ("de_DE.UTF-8", {"NUMBA_CACHE_DIR": "/proc/nope"}, "NUMBA_CACHE_DIR=/proc/nope ist nicht beschreibbar"),
        ("es_AR.UTF-8", {"NUMBA_NUM_THREADS": "0"}, "se ignora NUMBA_NUM_THREADS='0'"),
        ("C.UTF-8", {"NUMBA_NUM_THREADS": "0"}, "ignoring NUMBA_NUM_THREADS='0'"),
    ],
)
def test_the_notices_speak_the_locales_language(locale, env, words):
    """Said while `import solver` runs, before --lang is read: the locale's language, else English."""
    code = "import solver, sys; assert 'solver.dp' not in sys.modules"
    environ = {**os.environ, "LC_ALL": "", "LC_MESSAGES": "", "LANG": locale, **env}
    run = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stderr.startswith(f"kniffel: {words}"), run.stderr
    assert len(run.stderr.splitlines()) == 1


def test_a_quiet_start_imports_no_catalogue():
    code = "import solver, sys; print('solver.i18n.texts' in sys.modules)"
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}
    run = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=120)
    assert run.stdout.strip() == "False" and run.stderr == "", run.stderr
