import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))  # tests/naive.py


@pytest.fixture(scope="session")
def tmp_tables(tmp_path_factory):
    return tmp_path_factory.mktemp("tables")
