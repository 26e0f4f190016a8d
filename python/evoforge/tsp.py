"""tsp.py: evoforge.tsp.solve, kind aco (MAX-MIN Ant System) on a TSPLIB
file or on coordinates written to a temporary TSPLIB file."""
import math
import os
import tempfile
from typing import List, NamedTuple

from .job import Job


class Tour(NamedTuple):
    """The best tour (0-based city indices, a permutation) and its TSPLIB length."""
    tour: List[int]
    length: int


def _write_tsplib(coords, path):
    rows = [tuple(float(v) for v in c) for c in coords]
    if len(rows) < 3 or any(len(r) != 2 for r in rows):
        raise ValueError("coords: expected at least 3 (x, y) pairs")
    if not all(math.isfinite(v) for r in rows for v in r):
        raise ValueError("coords: expected finite numbers")
    with open(path, "w") as f:
        f.write(f"NAME : coords\nTYPE : TSP\nDIMENSION : {len(rows)}\n"
                "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n")
        for k, (x, y) in enumerate(rows):
            f.write(f"{k + 1} {x!r} {y!r}\n")
        f.write("EOF\n")


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


def solve(coords=None, tsplib=None, *, seed=1, iterations=200, local_search=None, time_limit=None,
          backend="cpu", threads=0, verbose=False, **options):
    """The shortest tour found by aco. coords: (x, y) pairs (EUC_2D distances,
    TSPLIB's rounding), or tsplib: a .tsp file. Returns Tour(tour, length).
    local_search: "2opt", "2.5opt", "oropt" (default none); other keyword
    arguments are [aco] keys (ants=64, rho=0.2)."""
    if (coords is None) == (tsplib is None):
        raise TypeError("evoforge.tsp.solve: give coords or tsplib (one of them)")
    tmp = None
    if coords is not None:
        fd, tmp = tempfile.mkstemp(prefix="evoforge-tsp-", suffix=".tsp")
        os.close(fd)
    try:
        if tmp:
            _write_tsplib(coords, tmp)
        path = os.path.abspath(tmp or os.fspath(tsplib))
        aco = [f"iterations = {int(iterations)}"]
        if local_search is not None:
            aco.append(f"local_search = {local_search}")
        if time_limit is not None:
            aco.append(f"time_limit = {float(time_limit)!r}")
        aco += [f"{k} = {v}" for k, v in options.items()]
        text = (f"[problem]\nkind = aco\nname = tsp\n[data]\nfile = {path}\n[aco]\n" +
                "\n".join(aco) + "\n")
        with Job(text, backend=backend, seed=int(seed), threads=threads, verbose=verbose) as job:
            job.run()
            res = job.result
            tour = _read_tour(os.path.join(job.output_dir, res.get("tour_file", "best.tour")))
            return Tour(tour, int(res["best_length"]))
    finally:
        if tmp:
            os.unlink(tmp)
