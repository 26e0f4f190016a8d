#!/usr/bin/env python3
"""shade_torch.py: SHADE (Tanabe & Fukunaga, CEC 2013), or JADE (Zhang &
Sanderson 2009, --strategy jade), written in PyTorch and
vectorised over problems and individuals, the way tensor libraries such as
EvoX run it: one generation of all problems is a handful of batched tensor
operations on a [problems, NP, D] float32 population. The baseline for
evoforge's `strategy = shade` when EvoX itself cannot be installed (the
device machines have no network); written from the paper, no EvoX code.

Per generation: r_i uniform in the H memory slots; CR_i ~ N(M_CR, 0.1)
clipped to [0, 1]; F_i ~ Cauchy(M_F, 0.1) redrawn while <= 0 (up to 16
times, then 0.01), truncated to 1; current-to-pbest/1 with p_i uniform in
[2/NP, 0.2] and r2 drawn from the population and the archive (size NP);
bounds by the midpoint to the parent; binomial crossover with j_rand;
selection f(u) <= f(x); the replaced parents go to the archive (a random
NP of old and new kept); the memory slot k takes the weighted (by
improvement) mean of the successful CR and Lehmer mean of the successful F.
JADE: one memory (mu_CR, mu_F), p = 0.05 for every individual, and after a
generation with successes mu = (1 - c) mu + c * (the plain mean of the
successful CR, the Lehmer mean of the successful F), c = 0.1.

    python3 tools/shade_torch.py --function rastrigin --dim 30 --population 300 \\
        --problems 1,1000 --max-evals 300000 --shift
Prints per configuration: evaluations per second (after a warm-up), the
run's wall time and the median, best, mean and sd of the final error over
the problems (independent runs: --problems 25 is CEC's 25 runs).
"""
import argparse
import json
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from de_torch import BOXES, objective  # noqa: E402  (same test functions)


def shade_run(fn, P, NP, D, max_evals, H, lo, hi, shift, dev, gen, jade=False):
    pop = lo + (hi - lo) * torch.rand((P, NP, D), device=dev, generator=gen)
    fit = objective(fn, pop - shift)
    arch = torch.zeros((P, NP, D), device=dev)
    acount = torch.zeros((P,), dtype=torch.long, device=dev)
    MF = torch.full((P, H), 0.5, device=dev)
    MCR = torch.full((P, H), 0.5, device=dev)
    k = torch.zeros((P,), dtype=torch.long, device=dev)
    ar = torch.arange(NP, device=dev)
    evals = NP
    while evals + NP <= max_evals:
        r = torch.randint(0, H, (P, NP), device=dev, generator=gen)
        cr = (torch.gather(MCR, 1, r) + 0.1 * torch.randn((P, NP), device=dev, generator=gen)).clamp(0, 1)
        mf = torch.gather(MF, 1, r)
        F = torch.zeros((P, NP), device=dev)
        need = torch.ones((P, NP), dtype=torch.bool, device=dev)
        for _ in range(16):
            u = torch.rand((P, NP), device=dev, generator=gen)
            c = mf + 0.1 * torch.tan(math.pi * (u - 0.5))
            F = torch.where(need, c, F)
            need = F <= 0
        F = torch.where(F <= 0, torch.full_like(F, 0.01), F).clamp(max=1.0)
        # pbest: one of the best ceil(p_i NP) by fitness
        order = fit.argsort(1)
        if jade:
            p = torch.full((P, NP), 0.05, device=dev)
        else:
            p = 2.0 / NP + (0.2 - 2.0 / NP) * torch.rand((P, NP), device=dev, generator=gen)
        top = (p * NP).ceil().clamp(min=2).long()
        pick = (torch.rand((P, NP), device=dev, generator=gen) * top).long()
        pbest = torch.gather(order, 1, pick)
        r1 = torch.randint(0, NP - 1, (P, NP), device=dev, generator=gen)
        r1 = r1 + (r1 >= ar)
        both = torch.cat([pop, arch], 1)
        r2 = (torch.rand((P, NP), device=dev, generator=gen) * (NP + acount.unsqueeze(1))).long()

        def rows(src, idx):
            return torch.gather(src, 1, idx.unsqueeze(-1).expand(P, NP, D))

        Fx = F.unsqueeze(-1)
        v = pop + Fx * (rows(pop, pbest) - pop) + Fx * (rows(pop, r1) - rows(both, r2))
        v = torch.where(v < lo, (pop + lo) / 2, v)
        v = torch.where(v > hi, (pop + hi) / 2, v)
        take = torch.rand((P, NP, D), device=dev, generator=gen) < cr.unsqueeze(-1)
        jr = torch.randint(0, D, (P, NP, 1), device=dev, generator=gen)
        take = take | (torch.arange(D, device=dev) == jr)
        u = torch.where(take, v, pop)
        fu = torch.nan_to_num(objective(fn, u - shift), nan=math.inf)
        evals += NP
        better = fu < fit
        keep = fu <= fit
        # archive: the replaced parents join; a random NP of all are kept
        cand = torch.cat([arch, pop], 1)
        valid = torch.cat([ar.expand(P, NP) < acount.unsqueeze(1), better], 1)
        key = torch.rand(valid.shape, device=dev, generator=gen).masked_fill(~valid, 2.0)
        sel = key.topk(NP, 1, largest=False).indices
        arch = torch.gather(cand, 1, sel.unsqueeze(-1).expand(P, NP, D))
        acount = valid.sum(1).clamp(max=NP)
        # memories: weighted means of the successful values
        if jade:   # plain means of the successes
            w = better.float()
        else:
            w = torch.where(better, (fit - fu).abs(), torch.zeros_like(fit))
        ws = w.sum(1)
        ok = (better.sum(1) > 0) & (ws > 0)
        wn = w / ws.clamp(min=1e-300).unsqueeze(1)
        new_cr = (wn * cr).sum(1)
        new_f = (wn * F * F).sum(1) / (wn * F).sum(1).clamp(min=1e-300)
        if jade:
            new_cr = 0.9 * MCR[:, 0] + 0.1 * new_cr
            new_f = 0.9 * MF[:, 0] + 0.1 * new_f
        slot = k.unsqueeze(1)
        MCR.scatter_(1, slot, torch.where(ok, new_cr, torch.gather(MCR, 1, slot).squeeze(1)).unsqueeze(1))
        MF.scatter_(1, slot, torch.where(ok, new_f, torch.gather(MF, 1, slot).squeeze(1)).unsqueeze(1))
        k = torch.where(ok, (k + 1) % H, k)
        pop = torch.where(keep.unsqueeze(-1), u, pop)
        fit = torch.where(keep, fu, fit)
    return fit.min(1).values, evals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--strategy", default="shade", choices=["shade", "jade"])
    ap.add_argument("--function", default="rastrigin", choices=sorted(BOXES))
    ap.add_argument("--dim", type=int, default=30)
    ap.add_argument("--population", type=int, default=100)
    ap.add_argument("--memory", type=int, default=0, help="H (default: the population)")
    ap.add_argument("--problems", default="1,1000")
    ap.add_argument("--max-evals", type=int, default=0, help="per problem (default 10000 * dim)")
    ap.add_argument("--shift", action="store_true", help="a random shift vector per problem")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--out", help="write the results to this JSON file")
    args = ap.parse_args()
    lo, hi = BOXES[args.function]
    D, NP = args.dim, args.population
    jade = args.strategy == "jade"
    H = 1 if jade else (args.memory or NP)
    budget = args.max_evals or 10000 * D
    dev = torch.device(args.device)
    records = []
    for P in [int(v) for v in args.problems.split(",")]:
        gen = torch.Generator(device=dev)
        gen.manual_seed(args.seed)
        shift = torch.zeros((P, 1, D), device=dev)
        if args.shift:
            shift = (lo + (hi - lo) * torch.rand((P, 1, D), device=dev, generator=gen)) * 0.8
        shade_run(args.function, P, NP, D, 20 * NP, H, lo, hi, shift, dev, gen, jade)   # warm-up
        if dev.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        best, evals = shade_run(args.function, P, NP, D, budget, H, lo, hi, shift, dev, gen, jade)
        if dev.type == "cuda":
            torch.cuda.synchronize()
        sec = time.perf_counter() - t0
        b = best.double().sort().values.cpu()
        rec = {"tool": "shade_torch", "function": args.function, "dim": D, "population": NP,
               "memory": H, "problems": P, "evals_per_problem": evals, "seconds": sec,
               "evals_per_s": P * evals / sec, "best_min": float(b[0]),
               "best_median": float(b[len(b) // 2]), "best_mean": float(b.mean()),
               "best_sd": float(b.std()) if len(b) > 1 else 0.0, "strategy": args.strategy, "device": torch.cuda.get_device_name(0)
               if dev.type == "cuda" else "cpu", "torch": torch.__version__}
        records.append(rec)
        print("| torch %s | %s D=%d NP=%d | %d problem(s) | %.3g evals/s | %.2f s | best median %.4g, min %.4g, mean %.4g ± %.3g |"
              % (args.strategy.upper(), args.function, D, NP, P, rec["evals_per_s"], sec, rec["best_median"],
                 rec["best_min"], rec["best_mean"], rec["best_sd"]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(records, f, indent=1)


if __name__ == "__main__":
    main()
