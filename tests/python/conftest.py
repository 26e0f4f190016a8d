"""conftest.py: the evoforge package's pytest setup: python/ on sys.path and
the repository's paths as fixtures."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def cli():
    path = ROOT / "build" / "evoforge"
    if not path.is_file():
        pytest.skip("SKIP: build/evoforge not built (ninja build/evoforge)")
    return path


def pytest_configure(config):
    os.environ.setdefault("EVOFORGE_CACHE", str(ROOT / "build" / "test-cache"))
