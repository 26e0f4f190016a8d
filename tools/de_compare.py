#!/usr/bin/env python3
"""de_compare.py: compares two `evoforge run` result folders of kind `de`
(typically --backend cpu and --backend gpu, or the fused and the naive GPU
variants) generation by generation: the history of best values per problem,
the generations run and the final best. Same seed and spec must give the
same sequence of best values; --rtol is the float tolerance.

Exact agreement is expected for sphere and Rosenbrock (+ - * fma / sqrt
round the same on both backends). For functions with sin/exp (Rastrigin,
Ackley, Griewank, Schwefel) the last bits of the math library differ, a
near-tie in one selection can go the other way, and from there the two runs
are different (equally valid) optimisations: the report then shows the
first generation where they part, which should not be the first entries.

    python3 tools/de_compare.py results/cpu results/gpu [--rtol 1e-5]
exit 0: all problems agree within rtol; 1: some differ (listed); 2: bad input.
"""
import argparse
import csv
import json
import math
import sys


def load(folder):
    with open(f"{folder}/result.json") as f:
        result = json.load(f)
    hist = None
    try:
        with open(f"{folder}/history.csv") as f:
            rows = list(csv.reader(f))
        hist = {"gens": [int(r[0]) for r in rows[1:]],
                "cols": [[float(r[k]) for r in rows[1:]] for k in range(2, len(rows[0]))]}
    except FileNotFoundError:
        pass
    return result, hist


def close(a, b, rtol):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rtol * max(abs(a), abs(b)) + 1e-30


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rtol", type=float, default=1e-5)
    args = ap.parse_args()
    try:
        ra, ha = load(args.a)
        rb, hb = load(args.b)
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"de_compare: {e}", file=sys.stderr)
        return 2
    print(f"a: {args.a}: {ra['backend']} on {ra['device']} [{ra['detail']}], "
          f"{ra['time_s']:.3f} s, {ra['evals_per_s']:.4g} evals/s")
    print(f"b: {args.b}: {rb['backend']} on {rb['device']} [{rb['detail']}], "
          f"{rb['time_s']:.3f} s, {rb['evals_per_s']:.4g} evals/s")
    if ra["problems"] != rb["problems"] or ra["seed"] != rb["seed"]:
        print("de_compare: different problems or seeds", file=sys.stderr)
        return 2
    same, parted = 0, []
    for p, (pa, pb) in enumerate(zip(ra["results"], rb["results"])):
        first = None
        if ha and hb:
            for k, (x, y) in enumerate(zip(ha["cols"][p], hb["cols"][p])):
                if not close(x, y, args.rtol):
                    first = (ha["gens"][k], x, y)
                    break
        ok = (first is None and pa["generations"] == pb["generations"]
              and close(pa["best"], pb["best"], args.rtol))
        if ok:
            same += 1
        else:
            parted.append((p, first, pa, pb))
    n = len(ra["results"])
    print(f"{same}/{n} problems agree (rtol {args.rtol:g}): same best-value history, "
          f"generations and final best")
    for p, first, pa, pb in parted[:20]:
        where = (f"history parts at generation {first[0]} ({first[1]:.9g} vs {first[2]:.9g})"
                 if first else "history agrees")
        print(f"  problem {p}: {where}; final {pa['best']:.9g} after {pa['generations']} "
              f"vs {pb['best']:.9g} after {pb['generations']} generations")
    if len(parted) > 20:
        print(f"  ... and {len(parted) - 20} more")
    return 0 if not parted else 1


if __name__ == "__main__":
    sys.exit(main())
