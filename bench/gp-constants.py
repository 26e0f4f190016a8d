#!/usr/bin/env python3
"""bench/gp-constants.py: measures gp's constant fitting (gp_constopt.h) on
Feynman-like regression problems with constants: off,
front (fit_front_steps: the Pareto front's members fitted at the end of the
run), topk (optimise_constants: the best programs of every generation) and
both. Writes the data (train 1500 rows, test 500, noise 0) under OUT, runs
evoforge on the CPU with one fixed budget, and prints a markdown table of
held-out R^2 (median and mean over seeds), the reported formula's
simplified_size and the run's wall time.

usage: bench/gp-constants.py EVOFORGE OUT [SEEDS]
       bench/gp-constants.py --table OUT LOG   (the table again from OUT's runs
                                                and the wall times LOG (stderr) has)"""
import json, math, os, random, subprocess, sys, time

PROBLEMS = {
    # name: (inputs with ranges, formula)
    "coulomb": ({"q1": (1, 5), "q2": (1, 5), "r": (1, 5)}, lambda v: 8.9875 * v["q1"] * v["q2"] / v["r"] ** 2),
    "kinetic3": ({"m": (1, 5), "v": (1, 5)}, lambda v: 0.5 * v["m"] * v["v"] ** 2 + 3),
    "gauss": ({"theta": (-3, 3)}, lambda v: math.exp(-v["theta"] ** 2 / 2) / math.sqrt(2 * math.pi)),
    "lens": ({"d1": (1, 5), "n": (1, 5), "d2": (1, 5)}, lambda v: 1 / (1 / v["d1"] + v["n"] / v["d2"])),
    "cosines": ({"x1": (1, 5), "x2": (1, 5), "t1": (1, 5), "t2": (1, 5)},
                lambda v: math.sqrt(v["x1"] ** 2 + v["x2"] ** 2 - 2 * v["x1"] * v["x2"] * math.cos(v["t1"] - v["t2"]))),
    "damped": ({"t": (0, 6)}, lambda v: 2.5 * math.exp(-0.35 * v["t"]) * math.sin(1.7 * v["t"] + 0.4)),
}

CONFIGS = {
    "off": [],
    "front": ["--set", "gp.fit_front_steps=50"],
    "topk": ["--set", "gp.optimise_constants=10"],
}

SPEC = """[problem]
kind = gp
name = {name}
seed = 1
[gp]
population = 1000
generations = 40
functions = + - * / sin cos exp log sqrt square pi
[data]
source = csv
file = {train}
test = {test}
label = y
fitness = mse
"""


def test_r2(od, test):
    """Held-out R^2 of a run's best: 1 - test MSE / variance of the test targets."""
    ys = [float(l.rsplit(",", 1)[1]) for l in open(test).read().split("\n")[1:] if l]
    mean = sum(ys) / len(ys)
    var = sum((y - mean) ** 2 for y in ys) / len(ys)
    return 1 - json.load(open(os.path.join(od, "result.json")))["holdout"]["test_mse"] / var


def row_of(name, cfg, seed, od, test, wall):
    best = json.load(open(os.path.join(od, "result.json")))["best"]
    return (name, cfg, seed, test_r2(od, test), best["simplified_size"], wall, best["simplified"])


def write_csv(path, inputs, f, rows, rng):
    with open(path, "w") as fh:
        fh.write(",".join(list(inputs) + ["y"]) + "\n")
        for _ in range(rows):
            v = {k: rng.uniform(*r) for k, r in inputs.items()}
            fh.write(",".join("%.9g" % v[k] for k in inputs) + ",%.9g\n" % f(v))


def table_again(out, log):
    rows = []
    for line in open(log):
        name, cfg, seed, _, _, wall = line.split()[:6]
        od = os.path.join(out, "runs", f"{name}-{cfg}-{seed}")
        rows.append(row_of(name, cfg, int(seed), od, os.path.join(out, name + "-test.csv"), float(wall)))
    table(rows)


def main():
    if sys.argv[1] == "--table":
        return table_again(sys.argv[2], sys.argv[3])
    evo, out = sys.argv[1], sys.argv[2]
    seeds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    os.makedirs(out, exist_ok=True)
    rows = []
    for name, (inputs, f) in PROBLEMS.items():
        rng = random.Random(name)
        train, test, spec = (os.path.join(out, name + s) for s in (".csv", "-test.csv", ".ini"))
        write_csv(train, inputs, f, 1500, rng)
        write_csv(test, inputs, f, 500, rng)
        with open(spec, "w") as fh:
            fh.write(SPEC.format(name=name, train=train, test=test))
        for cfg, extra in CONFIGS.items():
            for seed in range(1, seeds + 1):
                od = os.path.join(out, "runs", f"{name}-{cfg}-{seed}")
                t0 = time.time()
                subprocess.run([evo, "run", spec, "--backend", "cpu", "--seed", str(seed), "-q",
                                "-o", od] + extra, check=True, stdout=subprocess.DEVNULL)
                wall = time.time() - t0
                rows.append(row_of(name, cfg, seed, od, test, wall))
                print(*rows[-1][:6], file=sys.stderr, flush=True)
    with open(os.path.join(out, "runs.json"), "w") as fh:
        json.dump(rows, fh)
    table(rows)


def table(rows):
    print("| problem | constants | median test R² | mean test R² | R² > 0.999 | median simplified size | median time (s) |")
    print("|---|---|---|---|---|---|---|")
    med = lambda xs: sorted(xs)[len(xs) // 2] if len(xs) % 2 else sum(sorted(xs)[len(xs) // 2 - 1:len(xs) // 2 + 1]) / 2
    keys = []
    for r in rows:
        if (r[0], r[1]) not in keys:
            keys.append((r[0], r[1]))
    for cfg in CONFIGS:
        keys.append(("all", cfg))
    for name, cfg in keys:
        rs = [r for r in rows if r[1] == cfg and (name == "all" or r[0] == name)]
        r2 = [r[3] for r in rs]
        print(f"| {name} | {cfg} | {med(r2):.6f} | {sum(r2) / len(r2):.6f} | {sum(x > 0.999 for x in r2)}/{len(r2)} "
              f"| {med([r[4] for r in rs])} | {med([r[5] for r in rs]):.2f} |")


if __name__ == "__main__":
    main()
