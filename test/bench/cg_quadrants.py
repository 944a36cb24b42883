"""The conjugate gradient of cg.qd in Quadrants, in f32 and f64.

Run beside bench-cg and bench-cg-f64 (utils/bench-gpu.sh). Two forms, each
timed at a fixed iteration count and printed as `key median min max`
(microseconds per iteration):

  quadrants_cg_graph_us_<f32|f64>  Quadrants' strongest form: the whole
      solve in one graph=True kernel, the iteration under qd.graph.do_while,
      the scalars in 0-d fields, the loops fused as cg.qd fuses them;
  quadrants_cg_host_us_<f32|f64>   qd.linalg.MatrixFreeCG's loop, driven
      from the host with its dot products read back, its kernels compiled
      once (MatrixFreeCG itself compiles them anew at each call, which
      makes a call of a few iterations take tenths of a second).

It also checks that the graph form solves the system (max |Ax - b|).
"""
import math
import os
import statistics
import sys
import time

import quadrants as qd

# The grid's side: CG_GRID (default 32, Quadrants' test; 1024 beside
# bench-cg-1024, its keys then ending in _1024).
G = int(os.environ.get("CG_GRID", "32"))
SUFFIX = "" if G == 32 else f"_{G}"
ITERS, RUNS = 200, 20


def measure(dtype, name):
    qd.init(arch=qd.cuda, offline_cache=False)
    x, b, r, p, Ap = (qd.field(dtype, shape=(G, G)) for _ in range(5))
    rTr, pAp, rTr_new = (qd.field(dtype, shape=()) for _ in range(3))
    iters = qd.field(qd.i32, shape=())

    @qd.kernel
    def init():
        for i, j in qd.ndrange(G, G):
            xl = i / (G - 1)
            yl = j / (G - 1)
            b[i, j] = qd.sin(2 * math.pi * xl) * qd.sin(2 * math.pi * yl)

    @qd.func
    def apply_p(i, j):
        s = 20 * p[i, j]
        if i > 0:
            s -= p[i - 1, j]
        if i < G - 1:
            s -= p[i + 1, j]
        if j > 0:
            s -= p[i, j - 1]
        if j < G - 1:
            s -= p[i, j + 1]
        return s

    @qd.kernel(graph=True)
    def solve(go: qd.types.ndarray(qd.i32, ndim=0), max_iters: qd.i32,
              tol: dtype):
        for i, j in qd.ndrange(G, G):
            x[i, j] = 0.0
            r[i, j] = b[i, j]
            p[i, j] = b[i, j]
        rTr[None] = 0.0
        pAp[None] = 0.0
        rTr_new[None] = 0.0
        iters[None] = 0
        for i, j in qd.ndrange(G, G):
            rTr[None] += b[i, j] * b[i, j]
        while qd.graph.do_while(go):
            for i, j in qd.ndrange(G, G):
                s = apply_p(i, j)
                Ap[i, j] = s
                pAp[None] += p[i, j] * s
            for i, j in qd.ndrange(G, G):
                alpha = rTr[None] / pAp[None]
                x[i, j] += alpha * p[i, j]
                r[i, j] -= alpha * Ap[i, j]
                rTr_new[None] += r[i, j] * r[i, j]
            for i, j in qd.ndrange(G, G):
                p[i, j] = r[i, j] + rTr_new[None] / rTr[None] * p[i, j]
            rTr[None] = rTr_new[None]
            pAp[None] = 0.0
            rTr_new[None] = 0.0
            iters[None] += 1
            go[()] = 0
            if iters[None] < max_iters and (tol < 0 or rTr[None] >= tol * tol):
                go[()] = 1

    @qd.kernel
    def matvec(v: qd.template(), mv: qd.template()):
        for i, j in v:
            left = v[i - 1, j] if i - 1 >= 0 else 0.0
            right = v[i + 1, j] if i + 1 <= G - 1 else 0.0
            top = v[i, j + 1] if j + 1 <= G - 1 else 0.0
            bottom = v[i, j - 1] if j - 1 >= 0 else 0.0
            mv[i, j] = 20 * v[i, j] - left - right - top - bottom

    go = qd.ndarray(qd.i32, shape=())
    init()

    def run_graph(max_iters, tol):
        go[()] = 1
        solve(go, max_iters, tol)
        qd.sync()

    tol = 1e-5 if dtype == qd.f32 else 1e-12
    run_graph(1000, tol)
    xs, bs = x.to_numpy().astype(float), b.to_numpy().astype(float)
    worst = 0.0
    for i in range(G):
        for j in range(G):
            at = lambda a, c: xs[a, c] if 0 <= a < G and 0 <= c < G else 0.0
            ax = 20 * at(i, j) - at(i - 1, j) - at(i + 1, j) - at(i, j - 1) - at(i, j + 1)
            worst = max(worst, abs(ax - bs[i, j]))
    print(f"# quadrants {name}: graph solve took {iters[None]} iterations, "
          f"max |Ax - b| = {worst:.3g}")

    def timed(key, iterations, fn):
        for _ in range(3):
            fn()
        us = []
        for _ in range(RUNS):
            t0 = time.perf_counter()
            fn()
            us.append((time.perf_counter() - t0) * 1e6 / iterations)
        print(f"{key}_{name}{SUFFIX} {statistics.median(us):.4f} {min(us):.4f} {max(us):.4f}")
        sys.stdout.flush()

    timed("quadrants_cg_graph_us", ITERS, lambda: run_graph(ITERS, -1.0))

    alpha, beta = qd.field(dtype, shape=()), qd.field(dtype, shape=())

    @qd.kernel
    def start():
        for i, j in qd.ndrange(G, G):
            x[i, j] = 0.0
            r[i, j] = b[i, j]
            p[i, j] = b[i, j]

    @qd.kernel
    def dot(u: qd.template(), w: qd.template()) -> dtype:
        result = dtype(0.0)
        for i, j in u:
            result += u[i, j] * w[i, j]
        return result

    @qd.kernel
    def update_x():
        for i, j in x:
            x[i, j] += alpha[None] * p[i, j]

    @qd.kernel
    def update_r():
        for i, j in r:
            r[i, j] -= alpha[None] * Ap[i, j]

    @qd.kernel
    def update_p():
        for i, j in p:
            p[i, j] = r[i, j] + beta[None] * p[i, j]

    def run_host():
        # MatrixFreeCG's loop, its kernels compiled once (MatrixFreeCG
        # itself builds them anew at each call), for a fixed count.
        start()
        old = dot(r, r)
        for _ in range(ITERS):
            matvec(p, Ap)
            pAp = dot(p, Ap)
            alpha[None] = old / pAp if pAp != 0 else 0.0
            update_x()
            update_r()
            new = dot(r, r)
            beta[None] = new / old if old != 0 else 0.0
            update_p()
            old = new
        qd.sync()

    timed("quadrants_cg_host_us", ITERS, run_host)
    qd.reset()


measure(qd.f32, "f32")
measure(qd.f64, "f64")
