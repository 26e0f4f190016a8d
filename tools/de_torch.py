#!/usr/bin/env python3
"""de_torch.py: the same differential evolution as evoforge's kind `de`
(DE/rand/1/bin or DE/best/1/bin, F, CR, r1 != r2 != r3 != i drawn without
rejection, a guaranteed j_rand, reflect/clip/resample bounds, selection
f(trial) <= f(target)) written in PyTorch and vectorised over problems:
the population is one [problems, NP, D] float32 tensor, so one generation of
all problems is a handful of batched tensor operations. Random numbers come
from torch's generator, not Philox, so the runs are statistically, not
bit-for-bit, the same as evoforge's.

For side-by-side benchmarks on a GPU machine (`evoforge bench de --torch`
calls it): prints evaluations per second over --generations generations
(after a warm-up) and the time until every problem reached |f| <= --target
(or the budget of --max-evals evaluations per problem ran out).

    python3 tools/de_torch.py --function sphere --dim 30 --problems 1000
    python3 tools/de_torch.py --dim 10,30,100 --problems 1,100,1000 --out t.json
    python3 tools/de_torch.py ... --compile     # torch.compile the generation
    python3 tools/de_torch.py ... --json        # a JSON line per configuration
Each configuration also prints a Markdown row ("| torch | ...").
"""
import argparse
import json
import math
import sys
import time

import torch

BOXES = {
    "sphere": (-100.0, 100.0),
    "rosenbrock": (-30.0, 30.0),
    "rastrigin": (-5.12, 5.12),
    "ackley": (-32.768, 32.768),
    "griewank": (-600.0, 600.0),
    "schwefel": (-500.0, 500.0),
}


def objective(name, z):
    """Textbook test functions over the last axis of z ([..., D])."""
    d = z.shape[-1]
    if name == "sphere":
        return (z * z).sum(-1)
    if name == "rosenbrock":
        a, b = z[..., :-1], z[..., 1:]
        return (100.0 * (b - a * a) ** 2 + (a - 1.0) ** 2).sum(-1)
    if name == "rastrigin":
        return (z * z - 10.0 * torch.cos(2.0 * math.pi * z) + 10.0).sum(-1)
    if name == "ackley":
        s1 = (z * z).mean(-1)
        s2 = torch.cos(2.0 * math.pi * z).mean(-1)
        return -20.0 * torch.exp(-0.2 * torch.sqrt(s1)) - torch.exp(s2) + 20.0 + math.e
    if name == "griewank":
        k = torch.arange(1, d + 1, device=z.device, dtype=z.dtype)
        return 1.0 + (z * z).sum(-1) / 4000.0 - torch.cos(z / torch.sqrt(k)).prod(-1)
    if name == "schwefel":
        return 418.9828872724338 * d - (z * torch.sin(torch.sqrt(z.abs()))).sum(-1)
    raise ValueError(name)


def make_step(args, lo, hi):
    F, CR, fn = args.F, args.CR, args.function
    best1 = args.strategy == "best/1/bin"
    bounds = args.bounds

    def step(pop, fit, gen):
        P, NP, D = pop.shape
        dev = pop.device
        i = torch.arange(NP, device=dev).expand(P, NP)
        r1 = torch.randint(0, NP - 1, (P, NP), device=dev, generator=gen)
        r1 = r1 + (r1 >= i)
        lo_i, hi_i = torch.minimum(i, r1), torch.maximum(i, r1)
        r2 = torch.randint(0, NP - 2, (P, NP), device=dev, generator=gen)
        r2 = r2 + (r2 >= lo_i)
        r2 = r2 + (r2 >= hi_i)
        s0, s2 = torch.minimum(lo_i, r2), torch.maximum(hi_i, r2)
        s1 = lo_i + hi_i + r2 - s0 - s2
        r3 = torch.randint(0, NP - 3, (P, NP), device=dev, generator=gen)
        r3 = r3 + (r3 >= s0)
        r3 = r3 + (r3 >= s1)
        r3 = r3 + (r3 >= s2)

        def rows(idx):
            return torch.gather(pop, 1, idx.unsqueeze(-1).expand(P, NP, D))

        if best1:
            b = fit.argmin(1, keepdim=True).expand(P, NP)
            v = rows(b) + F * (rows(r1) - rows(r2))
        else:
            v = rows(r1) + F * (rows(r2) - rows(r3))
        if bounds == "clip":
            v = v.clamp(lo, hi)
        elif bounds == "reflect":
            v = torch.where(v < lo, 2.0 * lo - v, v)
            v = torch.where(v > hi, 2.0 * hi - v, v).clamp(lo, hi)
        else:
            out = (v < lo) | (v > hi)
            u = torch.rand(v.shape, device=dev, generator=gen)
            v = torch.where(out, lo + (hi - lo) * u, v)
        take = torch.rand((P, NP, D), device=dev, generator=gen) < CR
        jrand = torch.randint(0, D, (P, NP, 1), device=dev, generator=gen)
        take = take | (torch.arange(D, device=dev) == jrand)
        trial = torch.where(take, v, pop)
        ft = objective(fn, trial - args.shift_tensor)
        ft = torch.nan_to_num(ft, nan=math.inf)
        better = ft <= fit
        pop = torch.where(better.unsqueeze(-1), trial, pop)
        fit = torch.where(better, ft, fit)
        return pop, fit

    return step


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--function", default="sphere", choices=sorted(BOXES))
    ap.add_argument("--dim", "--dims", default="30", help="one or a comma-separated list")
    ap.add_argument("--problems", default="1,100,1000", help="one or a comma-separated list")
    ap.add_argument("--population", type=int, default=0, help="default 10 * dim")
    ap.add_argument("--F", type=float, default=0.5)
    ap.add_argument("--CR", type=float, default=0.9)
    ap.add_argument("--strategy", default="rand/1/bin", choices=["rand/1/bin", "best/1/bin"])
    ap.add_argument("--bounds", default="reflect", choices=["reflect", "clip", "resample"])
    ap.add_argument("--shift", action="store_true", help="a random shift vector per problem")
    ap.add_argument("--generations", type=int, default=100, help="throughput run")
    ap.add_argument("--target", type=float, default=1e-8, help="0: skip the target run")
    ap.add_argument("--max-evals", type=int, default=0, help="default 10000 * dim")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--compile", action="store_true", help="torch.compile the generation step")
    ap.add_argument("--json", action="store_true", help="print a JSON line per configuration")
    ap.add_argument("--out", help="write all configurations' results to this JSON file")
    args = ap.parse_args()
    records = []
    try:
        dims = [int(v) for v in args.dim.split(",")]
        probs = [int(v) for v in args.problems.split(",")]
    except ValueError:
        sys.exit("de_torch.py: --dim and --problems take integers separated by commas")
    print("| where | function | dim | problems | NP | evals/s | t(target) | reached |")
    print("|-------|----------|-----|----------|----|---------|-----------|---------|")
    for d in dims:
        for p in probs:
            try:
                records.append(run(args, d, p))
            except torch.cuda.OutOfMemoryError as e:
                print(f"de_torch: D={d} problems={p}: out of memory ({e})", file=sys.stderr)
                torch.cuda.empty_cache()
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"kind": "de-torch", "torch": torch.__version__, "rows": records}, f, indent=1)


def run(args, D, P):
    np_ = args.population or 10 * D
    if np_ < 4:
        sys.exit("de_torch.py: --population must be at least 4")
    lo, hi = BOXES[args.function]
    dev = torch.device(args.device)
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    if args.shift:
        u = torch.rand((P, 1, D), device=dev, generator=gen)
        args.shift_tensor = lo + (hi - lo) * (0.1 + 0.8 * u)
    else:
        args.shift_tensor = torch.zeros((1, 1, D), device=dev)
    step = make_step(args, lo, hi)
    if args.compile:
        step = torch.compile(step)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    def init():
        pop = lo + (hi - lo) * torch.rand((P, np_, D), device=dev, generator=gen)
        fit = objective(args.function, pop - args.shift_tensor)
        return pop, fit

    # warm-up (CUDA context, kernels, torch.compile)
    pop, fit = init()
    for _ in range(3):
        pop, fit = step(pop, fit, gen)
    sync()

    # throughput: init + generations
    t0 = time.perf_counter()
    pop, fit = init()
    for _ in range(args.generations):
        pop, fit = step(pop, fit, gen)
    sync()
    seconds = time.perf_counter() - t0
    evals = P * np_ * (args.generations + 1)
    rate = evals / seconds

    # time to target
    t_target, reached = None, 0
    if args.target > 0:
        budget = args.max_evals or 10000 * D
        gens = budget // np_ - 1
        t0 = time.perf_counter()
        pop, fit = init()
        g = 0
        while g < gens:
            for _ in range(min(10, gens - g)):
                pop, fit = step(pop, fit, gen)
            g += min(10, gens - g)
            reached = int((fit.min(1).values <= args.target).sum().item())
            if reached == P:
                break
        sync()
        if reached == P:
            t_target = time.perf_counter() - t0
        best = fit.min(1).values
        best_min = float(best.min().item())
    else:
        best_min = float(fit.min().item())

    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    print(f"de_torch: {args.function} D={D} NP={np_} problems={P} on {name}"
          f"{' (compiled)' if args.compile else ''}: {rate:.4g} evals/s over "
          f"{args.generations} generations; time to {args.target:g}: "
          f"{'%.4f s' % t_target if t_target is not None else '-'} "
          f"({reached}/{P} reached, best {best_min:.3g})", file=sys.stderr)
    tt = "%.4f s" % t_target if t_target is not None else "-"
    print(f"| torch | {args.function} | {D} | {P} | {np_} | {rate:.4g} | {tt} | {reached} |",
          flush=True)
    record = {"function": args.function, "dim": D, "population": np_, "problems": P,
              "device": name, "compiled": args.compile, "generations": args.generations,
              "seconds": seconds, "evals_per_s": rate, "time_to_target": t_target,
              "reached": reached, "best_min": best_min}
    if args.json:
        print(json.dumps(record), flush=True)
    return record


if __name__ == "__main__":
    main()
