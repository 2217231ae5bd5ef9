"""The Numba cache folder: a child process of a kniffel process (a test's subprocess, an xdist worker)
reuses the folder its parent chose, so that kernels compiled by one are loaded by the other."""

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
