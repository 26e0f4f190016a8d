#!/usr/bin/env python3
"""mbp_torch.py: the same training as evoforge's kind `mbp` (multiple
back-propagation, Lopes & Ribeiro) written in PyTorch: a network read from an
evoforge network file (shape, activations, initial weights), trained on a CSV
of already scaled patterns with the same rule: per-weight step sizes (grow by
u while the gradient keeps its sign, shrink by d when it flips, capped at
max_step), momentum, non-finite weights refused, and the robustness check per
epoch (save the best weights, restore them and shrink the steps when the RMS
grows by more than the tolerance). The gradients are back-propagated by hand
in tensor ops (not autograd), in the arithmetic of templates/mbp/mbp_core.h;
summation orders differ, so runs agree with evoforge to a few % in RMS, not
bit for bit.

A batch epoch has no host synchronisation (the robustness decision is a 0/1
tensor), so K epochs are captured into one CUDA graph. For benchmarks it
times --epochs epochs (after --warmup) eagerly and as graph replays and prints
epochs and weight corrections per minute; --fixed-epochs N instead trains
exactly N epochs from the file's weights and writes the result (--write-net)
to compare with `evoforge run`.

    python3 tools/mbp_torch.py --net sonar.net --data sonar.csv
    python3 tools/mbp_torch.py --case sonar:sonar.net:sonar.csv \\
        --case spirals:spirals.net:spirals.csv --epochs 5000 --out t.json
    python3 tools/mbp_torch.py --net n.net --data d.csv --minibatch 16 --variants eager
    python3 tools/mbp_torch.py --net n.net --data d.csv --fixed-epochs 1000 \\
        --write-net out/{name}.net          # compare with evoforge's training
    python3 tools/mbp_torch.py ... --device cpu --json
Each (case, variant) prints a Markdown row ("| torch eager | ...").
"""
import argparse
import csv
import json
import math
import os
import sys
import time

try:
    import torch
except ImportError:
    sys.exit("mbp_torch.py: needs PyTorch (import torch failed)")

ACTS = ("sigmoid", "tanh", "linear")
OOM = getattr(torch.cuda, "OutOfMemoryError", MemoryError)


class InputError(Exception):
    """A malformed network or data file; the message names file and line."""


# ---- network text format (runtime/mbp/mbp_impl.h) ----------------------------

def layout(net):
    """Offsets of each layer in the flat weight array, as mbp_shape_layout."""
    ni, h1, h2, no = net["ni"], net["h1"], net["h2"], net["no"]
    nlast = h2 if h2 > 0 else h1
    lay = [("w1", ("main", 1), h1, ni)]
    if h2 > 0:
        lay.append(("w2", ("main", 2), h2, h1))
    lay.append(("wo", ("main", 3 if h2 > 0 else 2), no, nlast))
    if net["space"]:
        lay.append(("ws", ("space", 1), h1, ni))
    offs, o = {}, 0
    for slot, _, n, k in lay:
        offs[slot] = (o, n, k)
        o += n * (k + 1)
    return lay, offs, o


def read_net(path):
    """Reads an evoforge network file -> dict (shape, activations, weights)."""
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    toks = []                                   # (line number, [words])
    for n, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if words:
            toks.append((n, words))
    if not toks or toks[0][1] != ["evoforge-mbp", "1"]:
        ln = toks[0][0] if toks else 1
        raise InputError(f"{path}:{ln}: expected 'evoforge-mbp 1' (an evoforge network file)")
    net = {"ni": None, "h1": None, "h2": 0, "no": None, "space": None, "ranges": [],
           "act": {}, "layers": {}}
    i = 1

    def ints(ln, words, count, what):
        if len(words) not in count:
            raise InputError(f"{path}:{ln}: expected '{what}'")
        try:
            v = [int(w) for w in words]
        except ValueError:
            raise InputError(f"{path}:{ln}: expected '{what}' with integers")
        if any(x < 0 for x in v):
            raise InputError(f"{path}:{ln}: '{what}': negative number")
        return v

    lay = offs = None
    while i < len(toks):
        ln, words = toks[i]
        key, rest = words[0], words[1:]
        i += 1
        if lay is not None and key in ("inputs", "outputs", "hidden", "space"):
            raise InputError(f"{path}:{ln}: '{key}' after the first layer")
        if key in ("inputs", "outputs"):
            net["ni" if key == "inputs" else "no"] = ints(ln, rest, (1,), key + " N")[0]
        elif key == "hidden":
            v = ints(ln, rest, (1, 2), "hidden H1 [H2]")
            net["h1"], net["h2"] = v[0], (v[1] if len(v) == 2 else 0)
        elif key == "space":
            v = ints(ln, rest, (1,), "space 0|1")[0]
            if v > 1:
                raise InputError(f"{path}:{ln}: expected 'space 0' or 'space 1'")
            net["space"] = v
        elif key == "activation":
            if (len(rest) != 2 or rest[0] not in ("hidden", "output", "space")
                    or rest[1] not in ACTS):
                raise InputError(f"{path}:{ln}: expected 'activation hidden|output|space "
                                 f"{'|'.join(ACTS)}'")
            net["act"][rest[0]] = rest[1]
        elif key in ("input_range", "target_range"):
            net["ranges"].append(" ".join(words))       # not used here; written back
        elif key == "layer":
            if lay is None:
                for k in ("ni", "h1", "no", "space"):
                    if net[k] is None or (k != "space" and net[k] == 0):
                        name = {"ni": "inputs", "h1": "hidden", "no": "outputs"}.get(k, k)
                        raise InputError(f"{path}:{ln}: layer before a valid '{name}' line")
                lay, offs, _ = layout(net)
            v = ints(ln, rest[1:], (3,), "layer main|space NUMBER NEURONS INPUTS") \
                if rest and rest[0] in ("main", "space") else None
            if v is None:
                raise InputError(f"{path}:{ln}: expected 'layer main|space NUMBER NEURONS INPUTS'")
            slot = next((s for s, key2, _, _ in lay if key2 == (rest[0], v[0])), None)
            if slot is None:
                raise InputError(f"{path}:{ln}: 'layer {rest[0]} {v[0]}' does not exist in a "
                                 f"network of this shape")
            if slot in net["layers"]:
                raise InputError(f"{path}:{ln}: 'layer {rest[0]} {v[0]}' given twice")
            want_n, want_k = offs[slot][1], offs[slot][2]
            if (v[1], v[2]) != (want_n, want_k):
                raise InputError(f"{path}:{ln}: layer {rest[0]} {v[0]}: expected {want_n} neurons "
                                 f"of {want_k} inputs, got {v[1]} of {v[2]}")
            need, vals = want_n * (want_k + 1), []
            while len(vals) < need:
                if i >= len(toks):
                    raise InputError(f"{path}: end of file in layer {rest[0]} {v[0]}: "
                                     f"{need - len(vals)} more numbers expected")
                ln2, ws = toks[i]
                i += 1
                for w in ws:
                    try:
                        x = float(w)
                    except ValueError:
                        raise InputError(f"{path}:{ln2}: layer {rest[0]} {v[0]}: expected a "
                                         f"number ({need - len(vals)} more), got '{w}'")
                    if not math.isfinite(x):
                        raise InputError(f"{path}:{ln2}: non-finite weight '{w}'")
                    vals.append(x)
                if len(vals) > need:
                    raise InputError(f"{path}:{ln2}: layer {rest[0]} {v[0]}: "
                                     f"{len(vals) - need} numbers too many")
            net["layers"][slot] = vals
        else:
            raise InputError(f"{path}:{ln}: unknown line '{key}'")
    if lay is None:
        raise InputError(f"{path}: no 'layer' lines (no weights)")
    for slot, (name, num), _, _ in lay:
        if slot not in net["layers"]:
            raise InputError(f"{path}: 'layer {name} {num}' is missing")
    for a in ("hidden", "output") + (("space",) if net["space"] else ()):
        if a not in net["act"]:
            raise InputError(f"{path}: 'activation {a} NAME' is missing")
    net["weights"] = [x for slot, _, _, _ in lay for x in net["layers"][slot]]
    return net


def write_net(path, net, w):
    """Writes weights w (a flat list) in the evoforge format, atomically."""
    lay, offs, _ = layout(net)
    out = ["evoforge-mbp 1", f"inputs {net['ni']}",
           f"hidden {net['h1']}" + (f" {net['h2']}" if net["h2"] else ""),
           f"outputs {net['no']}", f"space {net['space']}"]
    out += [f"activation {a} {net['act'][a]}" for a in ("hidden", "output", "space")
            if a in net["act"] and (a != "space" or net["space"])]
    out += net["ranges"]
    for slot, (name, num), n, k in lay:
        o = offs[slot][0]
        out.append(f"layer {name} {num} {n} {k}")
        for j in range(n):
            row = w[o + j * (k + 1): o + (j + 1) * (k + 1)]
            out.append(" ".join("%.9g" % x for x in row))
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("# written by tools/mbp_torch.py\n" + "\n".join(out) + "\n")
    os.replace(tmp, path)


def read_data(path, ni, no):
    """CSV with a header, columns x1..xN then t1..tO -> (x rows, t rows)."""
    xs, ts = [], []
    try:
        f = open(path, newline="")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    with f:
        reader = csv.reader(f)
        first = True
        for row in reader:
            ln = reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != ni + no:
                raise InputError(f"{path}:{ln}: expected {ni + no} columns (x1..x{ni}, "
                                 f"t1..t{no}, as the network), got {len(row)}")
            try:
                vals = [float(c) for c in row]
            except ValueError:
                if first:
                    first = False
                    continue                      # the header
                bad = next(c for c in row if not _isfloat(c))
                raise InputError(f"{path}:{ln}: expected a number, got '{bad}'")
            if first:
                print(f"mbp_torch: {path}: no header line; the first line is data",
                      file=sys.stderr)
            first = False
            if not all(math.isfinite(v) for v in vals):
                raise InputError(f"{path}:{ln}: non-finite value")
            xs.append(vals[:ni])
            ts.append(vals[ni:])
    if not xs:
        raise InputError(f"{path}: no patterns")
    return xs, ts


def _isfloat(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


# ---- training -------------------------------------------------------------------

def activate(act, a):
    if act == "sigmoid":
        return torch.sigmoid(a)
    if act == "tanh":
        return torch.tanh(a)
    return a


def times_derivative(act, d, y):
    """d * F'(a) with F' expressed through y = F(a) (mbp_derivative)."""
    if act == "sigmoid":
        return d * (y * (1.0 - y))
    if act == "tanh":
        return d * ((1.0 - y) * (1.0 + y))
    return d


def layer_grad(delta, inp, n):
    """[neurons, inputs + 1] mean over the batch of delta_j * input_i (bias first)."""
    return torch.cat([delta.sum(0).unsqueeze(1), delta.t() @ inp], 1) / n


class Trainer:
    """One network's state (flat weights, step sizes, momentum, previous
    gradient, robustness) as tensors updated in place, and its epochs."""

    def __init__(self, net, x, t, args, dev, dtype):
        self.net, self.args, self.dev, self.dtype = net, args, dev, dtype
        self.X = torch.tensor(x, dtype=dtype, device=dev)
        self.T = torch.tensor(t, dtype=dtype, device=dev)
        self.P = self.X.shape[0]
        self.denom = float(self.P * net["no"])
        self.w0 = torch.tensor(net["weights"], dtype=dtype, device=dev)
        z = lambda: torch.zeros_like(self.w0)
        self.w, self.eta, self.v, self.gprev, self.best_w = z(), z(), z(), z(), z()
        self.best = torch.zeros((), dtype=dtype, device=dev)
        self.last_rms = torch.zeros((), dtype=dtype, device=dev)
        self.restores = torch.zeros((), dtype=torch.long, device=dev)
        self.zero = torch.zeros((), dtype=dtype, device=dev)
        _, offs, _ = layout(net)
        self.W = {s: self.w[o:o + n * (k + 1)].view(n, k + 1) for s, (o, n, k) in offs.items()}
        self.order = [s for s in ("w1", "w2", "wo", "ws") if s in self.W]
        self.gen = torch.Generator(device=dev)
        self.reset()

    def reset(self):
        """The file's weights, eta = step0, no memories, best RMS = +inf."""
        self.w.copy_(self.w0)
        self.best_w.copy_(self.w0)
        self.eta.fill_(self.args.step0)
        self.v.zero_()
        self.gprev.zero_()
        self.best.fill_(math.inf)
        self.last_rms.fill_(math.nan)
        self.restores.zero_()
        self.gen.manual_seed(self.args.seed)

    def forward(self, x):
        a, W = self.net["act"], self.W
        lin = lambda s, inp: torch.addmm(W[s][:, 0], inp, W[s][:, 1:].t())
        f = activate(a["hidden"], lin("w1", x))
        m = activate(a["space"], lin("ws", x)) if self.net["space"] else None
        y1 = m * f if m is not None else f
        f2 = activate(a["hidden"], lin("w2", y1)) if "w2" in W else None
        last = f2 if f2 is not None else y1
        return f, m, y1, f2, last, activate(a["output"], lin("wo", last))

    def gradient(self, x, t):
        """Sum of squared errors and the flat mean gradient g = -dE/dw."""
        a, W, n = self.net["act"], self.W, x.shape[0]
        f, m, y1, f2, last, y = self.forward(x)
        e = t - y
        sse = (e * e).sum()
        d = times_derivative(a["output"], e, y)
        g = {"wo": layer_grad(d, last, n)}
        e = d @ W["wo"][:, 1:]
        if f2 is not None:
            d = times_derivative(a["hidden"], e, f2)
            g["w2"] = layer_grad(d, y1, n)
            e = d @ W["w2"][:, 1:]
        if m is not None:
            g["w1"] = layer_grad(times_derivative(a["hidden"], e * m, f), x, n)
            g["ws"] = layer_grad(times_derivative(a["space"], e * f, m), x, n)
        else:
            g["w1"] = layer_grad(times_derivative(a["hidden"], e, f), x, n)
        return sse, torch.cat([g[s].reshape(-1) for s in self.order])

    def corrected(self, g):
        """mbp_correct over all weights -> new (w, eta, v, gprev)."""
        r = self.args
        p = self.gprev * g
        eta = torch.where(p > 0, self.eta * r.up, torch.where(p < 0, self.eta * r.down, self.eta))
        eta = torch.clamp(eta, max=r.max_step)
        vv = g + r.momentum * self.v
        nw = self.w + eta * vv
        ok = torch.isfinite(nw)
        if r.robust:
            eta = torch.where(ok, eta, eta * r.reduction)
        return (torch.where(ok, nw, self.w), eta, torch.where(ok, vv, self.zero),
                torch.where(ok, g, self.zero))

    def robust_decision(self, rms):
        """mbp_robust_decision as 0-dim bool tensors (save, restore)."""
        save = rms < self.best
        restore = None
        if self.args.robust:
            restore = (rms >= self.best * (1.0 + self.args.tolerance)) & ~save
            self.restores.add_(restore.long())
        self.best.copy_(torch.where(save, rms, self.best))
        self.best_w.copy_(torch.where(save, self.w, self.best_w))
        self.last_rms.copy_(rms)
        return restore

    def store(self, new, restore):
        """State <- new, or on restore: best weights, eta * reduction, v = gprev = 0."""
        w, eta, v, gp = new
        if restore is not None:
            w = torch.where(restore, self.best_w, w)
            eta = torch.where(restore, self.eta * self.args.reduction, eta)
            v = torch.where(restore, self.zero, v)
            gp = torch.where(restore, self.zero, gp)
        self.w.copy_(w)
        self.eta.copy_(eta)
        self.v.copy_(v)
        self.gprev.copy_(gp)

    def epoch_batch(self):
        """One batch epoch, no host sync (CUDA-graph capturable)."""
        sse, g = self.gradient(self.X, self.T)
        rms = torch.sqrt(sse / self.denom)
        new = self.corrected(g)            # from the state before this epoch
        restore = self.robust_decision(rms)
        self.store(new, restore)

    def epoch_minibatch(self):
        """Patterns in a fresh shuffled order; a correction per N patterns;
        robustness on the epoch's running RMS (the weights after the epoch are
        the ones saved)."""
        perm = torch.randperm(self.P, generator=self.gen, device=self.dev)
        xs, ts, N = self.X[perm], self.T[perm], self.args.minibatch
        sq = self.zero
        for s in range(0, self.P, N):
            sse, g = self.gradient(xs[s:s + N], ts[s:s + N])
            sq = sq + sse
            self.store(self.corrected(g), None)
        restore = self.robust_decision(torch.sqrt(sq / self.denom))
        if restore is not None:
            self.store((self.w, self.eta, self.v, self.gprev), restore)

    def epoch(self):
        return self.epoch_minibatch() if self.args.minibatch else self.epoch_batch()

    def rms(self):
        """Training RMS of the current weights (a separate forward pass)."""
        y = self.forward(self.X)[-1]
        return math.sqrt(float(((self.T - y) ** 2).sum().item()) / self.denom)


# ---- runs -----------------------------------------------------------------------

def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def timed_loop(step, per_step, args, dev):
    """Calls step() until --epochs epochs (per_step each) or --seconds ran out."""
    check = max(1, math.ceil(200 / per_step))
    sync(dev)
    t0, done, calls = time.perf_counter(), 0, 0
    while done < args.epochs:
        step()
        done += per_step
        calls += 1
        if args.seconds > 0 and calls % check == 0:
            sync(dev)
            if time.perf_counter() - t0 >= args.seconds:
                break
    sync(dev)
    return done, time.perf_counter() - t0


def run_eager(tr, args, dev):
    tr.reset()
    for _ in range(args.warmup):
        tr.epoch()
    done, secs = timed_loop(tr.epoch, 1, args, dev)
    return done, secs, args.warmup + done


def run_graph(tr, args, dev):
    K = args.graph_epochs
    tr.reset()
    side = torch.cuda.Stream(dev)
    side.wait_stream(torch.cuda.current_stream(dev))
    warm = max(args.warmup, 3)
    with torch.cuda.stream(side):            # warm-up on a side stream (PyTorch docs)
        for _ in range(warm):
            tr.epoch()
    torch.cuda.current_stream(dev).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(K):
            tr.epoch()
    graph.replay()                           # first replay: upload, untimed
    done, secs = timed_loop(graph.replay, K, args, dev)
    del graph
    return done, secs, warm + K + done


def record_of(name, tr, args, where, dev_name):
    P, N = tr.P, args.minibatch
    net = tr.net
    return {"where": where, "case": name, "mode": f"minibatch {N}" if N else "batch",
            "patterns": P, "inputs": net["ni"], "hidden": [net["h1"], net["h2"]],
            "outputs": net["no"], "space": net["space"], "nweights": tr.w.numel(),
            "corrections_per_epoch": math.ceil(P / N) if N else 1,
            "device": dev_name, "dtype": args.dtype, "torch": torch.__version__,
            "rms": tr.rms(), "epoch_rms": float(tr.last_rms.item()),
            "best_rms": float(tr.best.item()), "restores": int(tr.restores.item())}


def emit(rec, args, records):
    records.append(rec)
    if rec["where"] == "torch fixed":
        print(f"| torch fixed | {rec['case']} | {rec['mode']} | {rec['patterns']} | "
              f"{rec['epochs_run']} | {rec['epoch_rms']:.6g} | {rec['best_rms']:.6g} | "
              f"{rec['restores']} | rms {rec['rms']:.6g} |", flush=True)
    else:
        print(f"| {rec['where']} | {rec['case']} | {rec['mode']} | {rec['patterns']} | "
              f"{rec['epochs_per_min']:,.0f} epochs/min | {rec['corrections_per_min']:,.0f} "
              f"corr/min | rms {rec['rms']:.4f} |", flush=True)
        print(f"mbp_torch: {rec['case']} {rec['where']} on {rec['device']}: "
              f"{rec['epochs_timed']} epochs in {rec['seconds']:.3f} s "
              f"({rec['epochs_run']} run), {rec['restores']} restores", file=sys.stderr)
    if args.json:
        print(json.dumps(rec), flush=True)


def run_case(name, net_path, data_path, args, dev, dtype, dev_name, records):
    net = read_net(net_path)
    x, t = read_data(data_path, net["ni"], net["no"])
    tr = Trainer(net, x, t, args, dev, dtype)
    if args.fixed_epochs:
        tr.reset()
        for _ in range(args.fixed_epochs):
            tr.epoch()
        sync(dev)
        rec = record_of(name, tr, args, "torch fixed", dev_name)
        rec["epochs_run"] = args.fixed_epochs
        if args.write_net:
            path = args.write_net.replace("{name}", name)
            write_net(path, net, tr.w.cpu().tolist())
            rec["net_written"] = path
        emit(rec, args, records)
        return
    for variant in args.variants:
        if variant == "graph" and (dev.type != "cuda" or args.minibatch):
            print(f"mbp_torch: {name}: no graph variant "
                  f"({'minibatch mode' if args.minibatch else 'not on CUDA'})", file=sys.stderr)
            continue
        done, secs, ran = (run_graph if variant == "graph" else run_eager)(tr, args, dev)
        rec = record_of(name, tr, args, f"torch {variant}", dev_name)
        epm = done / secs * 60.0 if secs > 0 else math.inf
        rec.update({"epochs_timed": done, "epochs_run": ran, "seconds": secs,
                    "epochs_per_min": epm,
                    "corrections_per_min": epm * rec["corrections_per_epoch"],
                    "warmup": args.warmup,
                    "graph_epochs": args.graph_epochs if variant == "graph" else 0})
        emit(rec, args, records)
    del tr
    if dev.type == "cuda":
        torch.cuda.empty_cache()


def main():
    doc = __doc__.split("\n\n")
    ap = argparse.ArgumentParser(description=doc[0], epilog="\n\n".join(doc[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--net", help="evoforge network file (shape, activations, initial weights)")
    ap.add_argument("--data", help="CSV with a header: x1..xN, t1..tO, already scaled")
    ap.add_argument("--name", help="the case's name for --net/--data (default: the net's stem)")
    ap.add_argument("--case", action="append", default=[], metavar="NAME:NET:DATA",
                    help="a case; repeat for several")
    ap.add_argument("--minibatch", type=int, default=0, metavar="N",
                    help="patterns per correction (0: batch, the default; 1: online)")
    ap.add_argument("--epochs", type=int, default=2000, help="timed epochs per variant")
    ap.add_argument("--seconds", type=float, default=60.0,
                    help="cap on the timed part per variant (0: none)")
    ap.add_argument("--warmup", type=int, default=20, help="untimed epochs first")
    ap.add_argument("--graph-epochs", type=int, default=50, help="epochs per CUDA graph")
    ap.add_argument("--variants", default="eager,graph", help="eager, graph or both")
    ap.add_argument("--fixed-epochs", type=int, default=0, metavar="N",
                    help="train exactly N epochs (eager) and report; no timing")
    ap.add_argument("--write-net", metavar="PATH",
                    help="with --fixed-epochs: final weights; {name} is the case's name")
    ap.add_argument("--step0", type=float, default=0.7, help="initial step size")
    ap.add_argument("--up", type=float, default=1.2, help="step growth when g keeps its sign")
    ap.add_argument("--down", type=float, default=0.8, help="step shrink when g flips")
    ap.add_argument("--max-step", type=float, default=10.0, help="step size cap")
    ap.add_argument("--momentum", type=float, default=0.7, help="v = g + momentum v")
    ap.add_argument("--no-robust", dest="robust", action="store_false",
                    help="no robustness (save/restore) check")
    ap.add_argument("--tolerance", type=float, default=0.001,
                    help="robustness: restore when rms >= best * (1 + tolerance)")
    ap.add_argument("--reduction", type=float, default=0.5,
                    help="robustness: step sizes multiplied on a restore")
    ap.add_argument("--seed", type=int, default=1, help="pattern order (minibatch)")
    ap.add_argument("--device", default="cuda", help="cuda (default), cuda:N or cpu")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--json", action="store_true", help="print a JSON line per row")
    ap.add_argument("--out", help="write all rows to this file (a JSON list)")
    args = ap.parse_args()

    cases = []
    for c in args.case:
        parts = c.split(":", 2)
        if len(parts) != 3 or not all(parts):
            ap.error(f"--case takes NAME:NET:DATA, got '{c}'")
        cases.append(tuple(parts))
    if args.net or args.data:
        if not (args.net and args.data):
            ap.error("--net and --data go together")
        stem = os.path.splitext(os.path.basename(args.net))[0]
        cases.insert(0, (args.name or stem, args.net, args.data))
    if not cases:
        ap.error("no case: give --net FILE --data FILE or --case NAME:NET:DATA")
    args.variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if not args.variants or any(v not in ("eager", "graph") for v in args.variants):
        ap.error("--variants takes eager, graph or eager,graph")
    if args.minibatch < 0 or args.epochs < 1 or args.warmup < 0 or args.graph_epochs < 1 \
            or args.fixed_epochs < 0:
        ap.error("--minibatch, --warmup, --fixed-epochs >= 0; --epochs, --graph-epochs >= 1")
    if args.write_net and not args.fixed_epochs:
        ap.error("--write-net goes with --fixed-epochs")
    if args.write_net and len(cases) > 1 and "{name}" not in args.write_net:
        ap.error("several cases: --write-net needs {name} in its path")

    dev = torch.device(args.device)
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            sys.exit("mbp_torch.py: CUDA is not available here; use --device cpu")
        if dev.index is None:
            dev = torch.device("cuda", torch.cuda.current_device())
        torch.cuda.set_device(dev)
        torch.backends.cuda.matmul.allow_tf32 = False   # plain float32 like evoforge
        dev_name = torch.cuda.get_device_name(dev)
    else:
        dev_name = "cpu"
    dtype = getattr(torch, args.dtype)

    records = []
    if args.fixed_epochs:
        print("| where | case | mode | patterns | epochs | epoch rms | best rms | restores | rms |")
        print("|-------|------|------|----------|--------|-----------|----------|----------|-----|")
    else:
        print("| where | case | mode | patterns | epochs/min | corrections/min | rms |")
        print("|-------|------|------|----------|------------|-----------------|-----|")
    status = 0
    for name, net_path, data_path in cases:
        try:
            run_case(name, net_path, data_path, args, dev, dtype, dev_name, records)
        except InputError as e:
            print(f"mbp_torch.py: {e}", file=sys.stderr)
            status = 2
        except OOM as e:
            print(f"mbp_torch: {name}: out of memory ({e})", file=sys.stderr)
            status = 1
            if dev.type == "cuda":
                torch.cuda.empty_cache()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(records, f, indent=1)
    sys.exit(status)


if __name__ == "__main__":
    main()
