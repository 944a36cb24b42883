#!/usr/bin/env bash
# GPU benchmarks: qdc side by side with hand-written CUDA built by nvcc, in
# one script on one machine. Prints the raw medians (with min..max) and a
# table of ratios last.
#
#   utils/bench-gpu.sh [build-dir]
#
# Needs the qdc build's bench-qdc, bench.ptx and libqdrt (built anywhere),
# and nvcc on this machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${QDC_BUILD_DIR:-$root/build}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" -O3 -std=c++17 -arch=native -o "$work/baseline" "$root/test/bench/baseline.cu" -lcuda
"$nvcc" -O3 -std=c++17 -arch=native -o "$work/reduce_baseline" "$root/test/bench/reduce_baseline.cu"
"$nvcc" -O3 -std=c++17 -arch=native -o "$work/kernels_baseline" "$root/test/bench/kernels_baseline.cu"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
# qdc and the baseline take turns, three rounds, so that drifts of the
# machine touch both alike.
rounds=${QDC_BENCH_ROUNDS:-3}
for r in $(seq 1 "$rounds"); do
  echo "== round $r: qdc"
  QD_ARCH=cuda "$build/bin/bench-qdc" | tee "$work/qdc.$r.txt"
  steps=$(awk '$1 == "steps" {print $2}' "$work/qdc.1.txt")
  echo "== round $r: hand-written CUDA (nvcc -O3)"
  "$work/baseline" "$build/bin/bench.ptx" "$steps" | tee "$work/cuda.$r.txt"
  echo "== round $r: reductions, qdc"
  QD_ARCH=cuda "$build/bin/bench-reduce" | tee -a "$work/qdc.$r.txt"
  echo "== round $r: reductions, CUB and atomicAdd (nvcc -O3)"
  "$work/reduce_baseline" | tee -a "$work/cuda.$r.txt"
  if [ -x "$build/bin/bench-kernels" ]; then
    echo "== round $r: the kernel suite, qdc"
    QD_ARCH=cuda "$build/bin/bench-kernels" | tee -a "$work/qdc.$r.txt"
    echo "== round $r: the kernel suite, CUDA (nvcc -O3)"
    "$work/kernels_baseline" | tee -a "$work/cuda.$r.txt"
  fi
  echo "== round $r: spin chain, qdc without and with -ffast-math"
  QD_ARCH=cuda "$build/bin/bench-spin" | tee -a "$work/qdc.$r.txt"
  QD_ARCH=cuda "$build/bin/bench-spin-fast" | tee -a "$work/qdc.$r.txt"
  echo "== round $r: conjugate gradient, qdc (do_while and host-driven)"
  for t in bench-cg bench-cg-f64 bench-cg-unfused bench-cg-f64-unfused bench-cg-1024; do
    QD_ARCH=cuda "$build/bin/$t" | tee -a "$work/qdc.$r.txt"
  done
  echo "== round $r: do_while bodies, on the device and driven by the host"
  QD_ARCH=cuda "$build/bin/bench-loops" | tee -a "$work/qdc.$r.txt"
  QD_ARCH=cuda "$build/bin/bench-loops-fused" | tee -a "$work/qdc.$r.txt"
  QD_ARCH=cuda QD_GRAPH_LOOPS=host "$build/bin/bench-loops" |
    tee -a "$work/qdc.$r.txt"
  # Quadrants, where its wheel is installed (PYTHONPATH): the same chain
  # and the same solver.
  if python3 -c "import quadrants" 2>/dev/null; then
    echo "== round $r: spin chain, Quadrants without and with fast_math"
    python3 "$root/test/bench/spin_quadrants.py" 2>/dev/null |
      grep -v "^\[" | tee -a "$work/cuda.$r.txt"
    echo "== round $r: conjugate gradient, Quadrants (graph do_while, MatrixFreeCG)"
    python3 "$root/test/bench/cg_quadrants.py" 2>/dev/null |
      grep -v "^\[" | tee -a "$work/cuda.$r.txt"
    echo "== round $r: conjugate gradient on a 1024x1024 grid, Quadrants"
    CG_GRID=1024 python3 "$root/test/bench/cg_quadrants.py" 2>/dev/null |
      grep -v "^\[" | tee -a "$work/cuda.$r.txt"
  fi
done

python3 - "$work" "$rounds" <<'PY'
import statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def load(prefix):
    """Per key: the median of the rounds' medians, the min of their mins,
    the max of their maxes."""
    runs = {}
    for r in range(1, rounds + 1):
        for line in open(f"{work}/{prefix}.{r}.txt"):
            parts = line.split()
            if len(parts) == 4:
                runs.setdefault(parts[0], []).append([float(p) for p in parts[1:]])
    return {k: [statistics.median(v[0] for v in vs), min(v[1] for v in vs),
                max(v[2] for v in vs)] for k, vs in runs.items()}
q, c = load("qdc"), load("cuda")
print()
print("| benchmark | qdc | hand-written CUDA | qdc / CUDA | target |")
print("| --- | --- | --- | --- | --- |")
for k in (1, 2, 4, 8, 16):
    qs = q[f"conc_serial_ms_{k}"][0] / q[f"conc_parallel_ms_{k}"][0]
    cs = c[f"conc_serial_ms_{k}"][0] / c[f"conc_parallel_ms_{k}"][0]
    print(f"| concurrency K={k}: speedup over serial | {qs:.2f}x | {cs:.2f}x | {qs/cs:.3f} | >= 0.97 |")
for key, name in (("call_plain_us", "call: one-task kernel, host us/call"),
                  ("call_fork4_us", "call: 4-group fork/join, host us/call")):
    print(f"| {name} | {q[key][0]:.2f} ({q[key][1]:.2f}..{q[key][2]:.2f}) | "
          f"{c[key][0]:.2f} ({c[key][1]:.2f}..{c[key][2]:.2f}) | {q[key][0]/c[key][0]:.3f} | <= 1.10 |")
if "call_fork4_graph_us" in q:
    g, h = q["call_fork4_graph_us"], c["call_fork4_us"]
    print(f"| call: 4-group kernel replayed from qd::capture vs hand-written fork/join, host us/call | {g[0]:.2f} ({g[1]:.2f}..{g[2]:.2f}) | "
          f"{h[0]:.2f} ({h[1]:.2f}..{h[2]:.2f}) | {g[0]/h[0]:.3f} | <= 0.35 |")
if "call_fork4_qdgraph_us" in q:
    g, h = q["call_fork4_qdgraph_us"], c["call_fork4_us"]
    print(f"| call: 4-group QD_GRAPH kernel (arguments updated, graph replayed) vs hand-written fork/join, host us/call | {g[0]:.2f} ({g[1]:.2f}..{g[2]:.2f}) | "
          f"{h[0]:.2f} ({h[1]:.2f}..{h[2]:.2f}) | {g[0]/h[0]:.3f} | <= 0.35 |")
if "overlap_checks_ns" in q:
    o, a, f = q["overlap_checks_ns"], q["call_fork4_arrays_us"], q["call_fork4_us"]
    print(f"| call: the launch-time overlap checks of a 4-group call writing 4 ndarrays (6 pairs), host us, vs that call | {o[0]/1000:.4f} ({o[1]/1000:.4f}..{o[2]/1000:.4f}) | "
          f"{a[0]:.2f} ({a[1]:.2f}..{a[2]:.2f}) (qdc) | {o[0]/1000/a[0]:.4f} | < 0.02 |")
    print(f"| call: 4-group call writing 4 ndarrays vs the 4-group call without arguments, host us/call | {a[0]:.2f} ({a[1]:.2f}..{a[2]:.2f}) | "
          f"{f[0]:.2f} ({f[1]:.2f}..{f[2]:.2f}) (qdc) | {a[0]/f[0]:.3f} | |")
if "call_plain_interleaved_us" in q:
    l, r = q["call_plain_interleaved_us"], q["call_raw_interleaved_us"]
    print(f"| call: launcher vs raw cuLaunchKernel in one process, turns | {l[0]:.2f} ({l[1]:.2f}..{l[2]:.2f}) | "
          f"{r[0]:.2f} ({r[1]:.2f}..{r[2]:.2f}) | {l[0]/r[0]:.3f} | <= 1.10 |")
if "call_fork4_interleaved_us" in q:
    l, r = q["call_fork4_interleaved_us"], q["call_fork4_hand_interleaved_us"]
    print(f"| call: 4-group launcher vs hand-written fork/join in one process, turns | {l[0]:.2f} ({l[1]:.2f}..{l[2]:.2f}) | "
          f"{r[0]:.2f} ({r[1]:.2f}..{r[2]:.2f}) | {l[0]/r[0]:.3f} | <= 1.10 |")
elements = 1 << 26
for key, name in (("reduce_sum_ms", "return-style sum"), ("reduce_min_ms", "return-style min"),
                  ("reduce_max_ms", "return-style max")):
    qg, cg = elements * 4 / q[key][0] / 1e6, elements * 4 / c[key][0] / 1e6
    print(f"| {name} of 2^26 floats, GB/s (CUB with its copy back) | {qg:.0f} ({q[key][0]:.3f} ms) | "
          f"{cg:.0f} ({c[key][0]:.3f} ms) | {qg/cg:.3f} | >= 0.90 |")
a = elements * 4 / c["reduce_atomic_sum_ms"][0] / 1e6
print(f"| sum by one atomicAdd per element (nvcc), GB/s | | {a:.0f} ({c['reduce_atomic_sum_ms'][0]:.3f} ms) | | |")
if "quadrants_spin_ms" in c:
    for qk, ck, name in (("spin_ms", "quadrants_spin_ms", "spin chain, ms/call: qdc vs Quadrants, both precise"),
                         ("spin_ms_fast", "quadrants_spin_ms_fast", "spin chain, ms/call: qdc -ffast-math vs Quadrants fast_math")):
        print(f"| {name} | {q[qk][0]:.3f} | {c[ck][0]:.3f} (Quadrants) | {q[qk][0]/c[ck][0]:.3f} | <= 1.00 |")
def us(m):
    return f"{m[0]:.2f} ({m[1]:.2f}..{m[2]:.2f})"
for t in ("f32", "f64"):
    if f"cg_graph_us_{t}" not in q:
        continue
    g, h = q[f"cg_graph_us_{t}"], q[f"cg_host_us_{t}"]
    gu, hu = q.get(f"cg_graph_us_{t}_unfused"), q.get(f"cg_host_us_{t}_unfused")
    print(f"| conjugate gradient {t}, us/iteration: do_while solve vs host-driven loop (qdc) | "
          f"{us(g)} | {us(h)} (qdc host loop) | {g[0]/h[0]:.3f} | |")
    if gu:
        print(f"| conjugate gradient {t}, us/iteration: fused do_while solve vs -fno-fuse-tasks (a graph while node) | "
              f"{us(g)} | {us(gu)} (qdc unfused) | {g[0]/gu[0]:.3f} | |")
        print(f"| conjugate gradient {t}, us/iteration: -fno-fuse-tasks do_while vs its host-driven loop | "
              f"{us(gu)} | {us(hu)} (qdc unfused host loop) | {gu[0]/hu[0]:.3f} | |")
    if f"quadrants_cg_graph_us_{t}" in c:
        qg, qh = c[f"quadrants_cg_graph_us_{t}"], c[f"quadrants_cg_host_us_{t}"]
        print(f"| conjugate gradient {t}, us/iteration: qdc do_while vs Quadrants graph=True do_while | "
              f"{g[0]:.2f} | {us(qg)} (Quadrants) | {g[0]/qg[0]:.3f} | <= 0.50 |")
        if gu:
            print(f"| conjugate gradient {t}, us/iteration: qdc -fno-fuse-tasks do_while vs Quadrants graph=True do_while | "
                  f"{gu[0]:.2f} | {qg[0]:.2f} (Quadrants) | {gu[0]/qg[0]:.3f} | |")
        print(f"| conjugate gradient {t}, us/iteration: qdc do_while vs Quadrants MatrixFreeCG (host-driven) | "
              f"{g[0]:.2f} | {us(qh)} (Quadrants) | {g[0]/qh[0]:.3f} | |")
# At a size no task fuses: 1024x1024, a million iterations per loop.
if "cg_graph_us_f32_1024" in q and "quadrants_cg_graph_us_f32_1024" in c:
    g, qg = q["cg_graph_us_f32_1024"], c["quadrants_cg_graph_us_f32_1024"]
    print(f"| conjugate gradient f32 on a 1024x1024 grid, us/iteration: qdc do_while vs Quadrants graph=True do_while | "
          f"{us(g)} | {us(qg)} (Quadrants) | {g[0]/qg[0]:.3f} | <= 0.80 |")
for body, name in (("serial", "one serial statement"), ("one_loop", "one loop and a serial statement"),
                   ("three_loops", "three loops and a serial statement")):
    key = f"do_while_{body}_us"
    if key in q and key + "_host" in q:
        d, h = q[key], q[key + "_host"]
        print(f"| do_while body of {name}, us per run: a graph while node vs driven by the host (-fno-fuse-tasks) | "
              f"{us(d)} | {us(h)} (qdc host loop) | {d[0]/h[0]:.3f} | |")
    if key in q and key + "_fused" in q:
        f, d = q[key + "_fused"], q[key]
        print(f"| do_while body of {name}, us per run: fused, inside one block, vs a graph while node | "
              f"{us(f)} | {us(d)} (qdc while node) | {f[0]/d[0]:.3f} | |")
if "spin_ms_fast" in q:
    print(f"| spin chain, ms/call: qdc -ffast-math vs qdc | {q['spin_ms_fast'][0]:.3f} | {q['spin_ms'][0]:.3f} (qdc) | "
          f"{q['spin_ms_fast'][0]/q['spin_ms'][0]:.3f} | |")
if "timeline_kernel_ms" in q and "timeline_kernel_ms" in c:
    for d in ("h2d", "d2h"):
        def overlap(m):
            k, c1, both = m["timeline_kernel_ms"][0], m[f"timeline_{d}_ms"][0], m[f"timeline_both_{d}_ms"][0]
            return k, c1, both, (k + c1) / both
        qk, qc, qb, qo = overlap(q)
        ck, cc, cb, co = overlap(c)
        print(f"| timeline: kernel + async {d} copy of 256 MiB pageable memory on two streams, ms alone / together "
              f"(serial / together) | {qk:.2f} + {qc:.2f} / {qb:.2f} ({qo:.2f}x) | {ck:.2f} + {cc:.2f} / {cb:.2f} ({co:.2f}x) | "
              f"{cb / qb:.3f} | > 1 |")
for d in ("h2d", "d2h"):
    key = f"pinned_{d}_ms"
    if key in q and key in c:
        print(f"| async {d} copy of 256 MiB, qd::HostArray vs cudaMallocHost memory, ms | {q[key][0]:.2f} | "
              f"{c[key][0]:.2f} | {c[key][0]/q[key][0]:.3f} (speed) | >= 0.95 |")
if "fill_ms" in q:
    # A double with no short repeating pattern has no memset to match: its
    # row is for reference (docs/performance.md), without a target.
    for key, name, target in (("fill_ms", "fill of 2^26 floats, ms (cudaMemsetAsync)", ">= 0.95"),
                              ("fill_f64_ms", "fill of 2^25 doubles 1/3, ms (cudaMemsetAsync of as many bytes)", ""),
                              ("copy_ms", "qd::copy of 2^26 floats, ms (cudaMemcpyAsync D2D)", ">= 0.95")):
        print(f"| {name} | {q[key][0]:.4f} | {c[key][0]:.4f} | {c[key][0]/q[key][0]:.3f} (speed) | {target} |")
copy = c["copy_gbs"][0]
for key, name in (("saxpy_gbs", "saxpy GB/s"), ("stencil_gbs", "2-D stencil GB/s")):
    print(f"| {name} (D2D copy {copy:.0f}) | {q[key][0]:.0f} ({q[key][0]/copy:.2f} of copy) | "
          f"{c[key][0]:.0f} ({c[key][0]/copy:.2f} of copy) | {q[key][0]/c[key][0]:.3f} | >= 0.97 |")
# The kernel suite: GPU ms per run, each beside its nvcc original; a row
# whose result's checksum differs from CUDA's says so.
def sums(prefix):
    out = {}
    for r in range(1, rounds + 1):
        for line in open(f"{work}/{prefix}.{r}.txt"):
            parts = line.split()
            if len(parts) == 2 and parts[0].startswith("kern_") and parts[0].endswith("_sum"):
                out.setdefault(parts[0], set()).add(parts[1])
    return out
qs, cs = sums("qdc"), sums("cuda")
ratios = []
suite = sorted(k for k in q if k.startswith("kern_") and k.endswith("_ms") and k in c)
for key in suite:
    name = key[len("kern_"):-len("_ms")]
    r = q[key][0] / c[key][0]
    ratios.append(r)
    agree = qs.get(f"kern_{name}_sum") == cs.get(f"kern_{name}_sum")
    print(f"| kernel {name}, GPU ms per run{'' if agree else ' (RESULTS DIFFER from CUDA)'} | {us(q[key])} | "
          f"{us(c[key])} | {r:.3f} | <= 1.05 |")
# MVT's two products as the CUDA version launches them, one after the
# other (the suite's mvt runs them as stream-parallel groups): beside the
# same nvcc row, and the mean with it in mvt's place.
serial = "kern_mvt_serial_ms"
if serial in q and "kern_mvt_ms" in c:
    r = q[serial][0] / c["kern_mvt_ms"][0]
    agree = qs.get("kern_mvt_serial_sum") == cs.get("kern_mvt_sum")
    print(f"| kernel mvt without QD_STREAM_PARALLEL{'' if agree else ' (RESULTS DIFFER from CUDA)'} | "
          f"{us(q[serial])} | {us(c['kern_mvt_ms'])} | {r:.3f} | (not in the mean) |")
if ratios:
    import math
    def mean(rs):
        return math.exp(sum(math.log(x) for x in rs) / len(rs))
    print(f"| kernel suite: geometric mean of the {len(ratios)} ratios | | | {mean(ratios):.3f} | <= 0.95 |")
    if serial in q and "kern_mvt_ms" in c:
        alt = [q[serial if k == "kern_mvt_ms" else k][0] / c[k][0] for k in suite]
        print(f"| kernel suite: the same with mvt without QD_STREAM_PARALLEL | | | {mean(alt):.3f} | |")
PY
