"""tsp.py: evoforge.tsp.solve, kind aco (MAX-MIN Ant System) on a TSPLIB
file, or on coordinates or a distance matrix lent from memory (the C API's
tables, "memory:cities")."""
import math
import os
from typing import List, NamedTuple

import numpy as np

from .job import Job


class Tour(NamedTuple):
    """The best tour (0-based city indices, a permutation) and its TSPLIB length."""
    tour: List[int]
    length: int


def _table(coords, matrix):
    """The float64 table aco reads: n x 2 coordinates or an n x n matrix."""
    if coords is not None:
        X = np.ascontiguousarray(coords, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] < 3:
            raise ValueError("evoforge.tsp.solve: coords: expected at least 3 (x, y) pairs, got "
                             f"an array of shape {X.shape}")
        return X
    X = np.ascontiguousarray(matrix, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != X.shape[1]:
        raise ValueError("evoforge.tsp.solve: matrix: expected a square n x n array of lengths, "
                         f"got shape {X.shape}")
    return X


def _read_tour(path):
    tour, inside = [], False
    with open(path) as f:
        for line in f:
            word = line.strip()
            if word.upper() == "TOUR_SECTION":
                inside = True
            elif inside:
                if word == "-1" or word.upper() == "EOF":
                    break
                tour.extend(int(w) - 1 for w in word.split())
    return tour


def length(coords, tour):
    """A closed tour's TSPLIB EUC_2D length: the sum of nint(Euclidean distance)."""
    n = len(tour)
    return sum(int(math.dist(coords[tour[k]], coords[tour[(k + 1) % n]]) + 0.5) for k in range(n))


def solve(coords=None, tsplib=None, *, matrix=None, seed=1, iterations=200, local_search=None,
          time_limit=None, backend="cpu", threads=0, verbose=False, **options):
    """The shortest tour found by aco, from one of: coords, (x, y) pairs
    (EUC_2D: TSPLIB's nint of the Euclidean distance); matrix, the full n x n
    lengths (whole numbers, symmetric: aco solves symmetric instances only;
    anything else raises ValueError with the C API's message); tsplib, a
    .tsp file. coords and matrix are lent to the run from memory, no file
    written. Returns Tour(tour, length). local_search: "2opt", "2.5opt",
    "oropt" (default none); other keyword arguments are [aco] keys (ants=64,
    rho=0.2)."""
    if sum(v is not None for v in (coords, tsplib, matrix)) != 1:
        raise TypeError("evoforge.tsp.solve: give coords, matrix or tsplib (one of them)")
    table = None if tsplib is not None else _table(coords, matrix)
    path = "memory:cities" if table is not None else os.path.abspath(os.fspath(tsplib))
    aco = [f"iterations = {int(iterations)}"]
    if local_search is not None:
        aco.append(f"local_search = {local_search}")
    if time_limit is not None:
        aco.append(f"time_limit = {float(time_limit)!r}")
    aco += [f"{k} = {v}" for k, v in options.items()]
    text = (f"[problem]\nkind = aco\nname = tsp\n[data]\nfile = {path}\n[aco]\n" +
            "\n".join(aco) + "\n")
    with Job(text, backend=backend, seed=int(seed), threads=threads, verbose=verbose) as job:
        if table is not None:
            job.set_table("cities", table)
        job.run()
        res = job.result
        tour = _read_tour(os.path.join(job.output_dir, res.get("tour_file", "best.tour")))
        return Tour(tour, int(res["best_length"]))
