"""test_tsp.py: evoforge.tsp.solve (kind aco) on coordinates, on a distance
matrix (both lent from memory) and on a TSPLIB file: a permutation whose
length is the length recomputed here, the same for the three forms of one
instance; bad instances raise ValueError with the C API's message."""
import math
import random

import numpy as np

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


def _write_tsplib(coords, path):
    with open(path, "w") as f:
        f.write(f"NAME : coords\nTYPE : TSP\nDIMENSION : {len(coords)}\n"
                "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n")
        for k, (x, y) in enumerate(coords):
            f.write(f"{k + 1} {float(x)!r} {float(y)!r}\n")
        f.write("EOF\n")


def _recomputed(coords, tour):
    """TSPLIB's EUC_2D length of the closed tour, independently of tsp.length."""
    total = 0
    for a, b in zip(tour, tour[1:] + tour[:1]):
        total += math.floor(math.hypot(coords[a][0] - coords[b][0], coords[a][1] - coords[b][1])
                            + 0.5)
    return total


def test_coords_matrix_tsplib_agree(tmp_path):
    rng = random.Random(3)
    coords = [(rng.randrange(2000) / 2, rng.randrange(2000) / 2) for _ in range(40)]
    path = tmp_path / "forty.tsp"
    _write_tsplib(coords, path)
    c = np.asarray(coords)
    matrix = np.floor(np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1]) + 0.5)
    runs = [tsp.solve(tsplib=path, seed=2, iterations=40),
            tsp.solve(coords=c, seed=2, iterations=40),
            tsp.solve(matrix=matrix, seed=2, iterations=40),
            tsp.solve(matrix=matrix.astype(np.int64), seed=2, iterations=40)]
    for r in runs:
        assert sorted(r.tour) == list(range(40))
        assert r.length == _recomputed(coords, r.tour)
    assert runs[1] == runs[0]   # the same instance, seed and run: the same tour
    assert all(r.length == runs[0].length for r in runs)


def test_matrix_errors():
    good = np.array([[0, 3, 4], [3, 0, 5], [4, 5, 0]])
    assert tsp.solve(matrix=good, iterations=5).length == 12
    with pytest.raises(ValueError, match="not symmetric"):
        tsp.solve(matrix=[[0, 3, 4], [2, 0, 5], [4, 5, 0]])
    with pytest.raises(ValueError, match="whole number from 0"):
        tsp.solve(matrix=[[0, -3, 4], [-3, 0, 5], [4, 5, 0]])
    with pytest.raises(ValueError, match="whole number from 0"):
        tsp.solve(matrix=[[0, 3.5, 4], [3.5, 0, 5], [4, 5, 0]])
    with pytest.raises(ValueError, match="square"):
        tsp.solve(matrix=np.zeros((3, 4)))
    with pytest.raises(ValueError, match="finite"):
        tsp.solve(coords=[(0, 0), (1, float("nan")), (2, 0)])
    with pytest.raises(TypeError):
        tsp.solve(coords=good[:, :2], matrix=good)


def test_tsplib_file(tmp_path):
    coords = [(0, 0), (10, 0), (10, 10), (0, 10), (5, 5)]
    path = tmp_path / "five.tsp"
    _write_tsplib(coords, path)
    r = tsp.solve(tsplib=path, iterations=20)
    assert sorted(r.tour) == list(range(5)) and r.length == tsp.length(coords, r.tour) == 44   # 3 sides + the detour through the centre


def test_errors():
    with pytest.raises(TypeError):
        tsp.solve()
    with pytest.raises(ValueError, match="at least 3"):
        tsp.solve([(0, 0), (1, 1)])
    with pytest.raises(ValueError, match="local_search"):
        tsp.solve([(0, 0), (1, 1), (2, 0)], local_search="4opt")
