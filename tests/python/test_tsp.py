"""test_tsp.py: evoforge.tsp.solve (kind aco) on coordinates and on a TSPLIB
file: a permutation whose length is the length recomputed here."""
import random

import pytest

import evoforge
from evoforge import tsp


def test_random_cities():
    rng = random.Random(7)
    coords = [(rng.uniform(0, 1000), rng.uniform(0, 1000)) for _ in range(30)]
    tour, length = tsp.solve(coords, seed=1, iterations=100)
    assert sorted(tour) == list(range(30))
    assert length == tsp.length(coords, tour)
    again = tsp.solve(coords=coords, seed=1, iterations=100)
    assert again == (tour, length)
    ls = tsp.solve(coords, seed=1, iterations=50, local_search="2opt")
    assert sorted(ls.tour) == list(range(30)) and ls.length == tsp.length(coords, ls.tour)


def test_tsplib_file(tmp_path):
    coords = [(0, 0), (10, 0), (10, 10), (0, 10), (5, 5)]
    path = tmp_path / "five.tsp"
    tsp._write_tsplib(coords, path)
    r = tsp.solve(tsplib=path, iterations=20)
    assert sorted(r.tour) == list(range(5)) and r.length == tsp.length(coords, r.tour) == 44   # 3 sides + the detour through the centre


def test_errors():
    with pytest.raises(TypeError):
        tsp.solve()
    with pytest.raises(ValueError, match="at least 3"):
        tsp.solve([(0, 0), (1, 1)])
    with pytest.raises(ValueError, match="local_search"):
        tsp.solve([(0, 0), (1, 1), (2, 0)], local_search="4opt")
