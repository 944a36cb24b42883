#!/usr/bin/env python3
"""Compile time and peak memory: `qdc` on a .qd file with 1, 10 and 100
kernels vs `nvcc -c` on the equivalent .cu with a hand-written launcher, on
this machine (no GPU needed). Medians of several runs, spread shown; prints
a table last.

    utils/bench-compile.py [--qdc build/bin/qdc] [--nvcc nvcc] [--runs 5]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def qd_source(n):
    out = ["#include <qd/qd.h>\n"]
    for i in range(n):
        out.append(
            f"QD_KERNEL void k{i}(qd::ndarray<float, 1> x, float s) {{\n"
            f"  for (int64_t i : qd::range(x.shape(0)))\n"
            f"    x[i] = x[i] * s + {i}.0f;\n}}\n")
    return "".join(out)


def cu_source(n):
    out = ["#include <cuda_runtime.h>\n"]
    for i in range(n):
        out.append(
            f"__global__ void k{i}(float *x, long n, float s) {{\n"
            f"  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;\n"
            f"       i += (long)gridDim.x * blockDim.x)\n"
            f"    x[i] = x[i] * s + {i}.0f;\n}}\n"
            f"void launch_k{i}(float *x, long n, float s, cudaStream_t st) {{\n"
            f"  long blocks = (n + 127) / 128;\n"
            f"  k{i}<<<blocks < 4224 ? (int)blocks : 4224, 128, 0, st>>>(x, n, s);\n}}\n")
    return "".join(out)


def measure(cmd, cwd):
    """Wall seconds and peak RSS (MiB) of one run."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return wall, usage.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--qdc", default=os.path.join(root, "build", "bin", "qdc"))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="qdc-bench-")
    rows = []
    for n in (1, 10, 100):
        open(os.path.join(work, f"k{n}.qd"), "w").write(qd_source(n))
        open(os.path.join(work, f"k{n}.cu"), "w").write(cu_source(n))
        cache = os.path.join(work, "cache")
        tools = {
            "qdc": [args.qdc, f"k{n}.qd", "-o", f"k{n}.qdc.o", "--offload-arch=sm_80"],
            # With a compile cache folder whose entries are gone before each
            # run (a miss, as after an edit): what it keeps across them is
            # the precompiled launcher header, built by the warm-up run.
            "qdc-pch": [args.qdc, f"k{n}.qd", "-o", f"k{n}.qdc.o", "--offload-arch=sm_80",
                        f"--cache-dir={cache}"],
            "nvcc": [args.nvcc, "-c", "-O3", "-arch=sm_80", f"k{n}.cu", "-o", f"k{n}.nvcc.o"],
        }

        def forget_entries():
            for d in os.listdir(cache) if os.path.isdir(cache) else []:
                if len(d) == 2:
                    shutil.rmtree(os.path.join(cache, d))

        def run(cmd):
            forget_entries()
            return measure(cmd, work)

        result = {}
        for name, cmd in tools.items():
            run(cmd)  # warm-up: file cache (and the precompiled header)
            runs = [run(cmd) for _ in range(args.runs)]
            walls = [w for w, _ in runs]
            rss = [m for _, m in runs]
            result[name] = (statistics.median(walls), min(walls), max(walls), statistics.median(rss))
            print(f"{name} {n} kernels: {result[name][0]:.2f} s ({min(walls):.2f}..{max(walls):.2f}), "
                  f"{result[name][3]:.0f} MiB", flush=True)
        rows.append((n, result))
    shutil.rmtree(work)
    print()
    print("| kernels | qdc s | qdc with cache folder s | nvcc s | time qdc/nvcc | with cache folder/nvcc | qdc MiB | nvcc MiB | memory qdc/nvcc |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n, r in rows:
        q, p, c = r["qdc"], r["qdc-pch"], r["nvcc"]
        print(f"| {n} | {q[0]:.2f} ({q[1]:.2f}..{q[2]:.2f}) | {p[0]:.2f} ({p[1]:.2f}..{p[2]:.2f}) | "
              f"{c[0]:.2f} ({c[1]:.2f}..{c[2]:.2f}) | {q[0]/c[0]:.2f} | {p[0]/c[0]:.2f} | "
              f"{q[3]:.0f} | {c[3]:.0f} | {q[3]/c[3]:.2f} |")


if __name__ == "__main__":
    main()
