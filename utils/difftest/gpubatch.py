"""Builds a batch of generated programs for a machine with an NVIDIA GPU.

On this (build) machine: each seed's program is compiled by qdc for the GPU
(--offload-arch, PTX) and linked into an executable; its expected output
comes from the serial reference. The batch directory holds lib/libqdrt.so (and lib/tbb),
compare.py, one directory per seed (app, expected.txt, prog.qd) and run.sh,
which on the GPU machine runs every program with QD_ARCH=cuda, compares and
prints a summary. The GPU machine needs only bash and python3.
"""
import concurrent.futures as cf
import os
import shutil

import runner
from generator import generate, parse_features

HERE = os.path.dirname(os.path.abspath(__file__))

RUN_SH = r'''#!/usr/bin/env bash
# Runs every program of this batch on the GPU (QD_ARCH=cuda) and compares
# its output with the serial reference's. Usage: ./run.sh [QD_ARCH value]
cd "$(dirname "$0")"
arch=${1:-cuda}
ran=0 passed=0 mismatched=0 crashed=0
for d in seed-*/; do
  d=${d%/}
  ran=$((ran + 1))
  QD_ARCH=$arch timeout 120 "./$d/app" >"$d/actual.txt" 2>"$d/stderr.txt"
  rc=$?
  if [ $rc != 0 ]; then
    crashed=$((crashed + 1))
    why="exit $rc"; [ $rc = 124 ] && why="no result in 120 s"
    echo "$d: crashed ($why): $(head -c 300 "$d/stderr.txt")"
  elif python3 compare.py "$d/expected.txt" "$d/actual.txt" >"$d/diff.txt"; then
    passed=$((passed + 1))
  else
    mismatched=$((mismatched + 1))
    echo "$d: mismatch: $(head -3 "$d/diff.txt" | tr '\n' ' ')"
  fi
done
echo "difftest gpu batch ($arch): ran $ran, passed $passed, mismatched $mismatched, crashed $crashed"
[ "$passed" = "$ran" ]
'''


def compile_and_link(work, arch, tools, options=()):
    """qdc on work/prog.qd for arch (and the CPU), linked with main.cpp into
    work/app, which finds libqdrt in ../lib; returns (status, text)."""
    cmd = [tools.qdc, 'prog.qd', '-o', 'prog.o', '-w', f'--offload-arch={arch}']
    rc, text = runner.sh(cmd + list(options), work, 900)
    if rc != 0:
        return 'refused', text
    rc, text = runner.sh([tools.cxx, '-std=c++17', '-w', '-I', work, '-I', tools.include,
                          'main.cpp', 'prog.o', '-L', tools.lib, '-lqdrt',
                          '-Wl,-rpath,$ORIGIN/../lib', '-o', 'app'], work, 600)
    return ('link-error', text) if rc != 0 else ('built', '')


def keep_app(work, dest, expected):
    """Copies what the GPU machine needs (and the sources) to dest."""
    os.makedirs(dest, exist_ok=True)
    for name in ('app', 'prog.qd', 'main.cpp'):
        shutil.copy(os.path.join(work, name), dest)
    with open(os.path.join(dest, 'expected.txt'), 'w') as f:
        f.write(expected)


def build_one(seed, feats, arch, tools, out, work_root):
    prog = generate(seed, feats)
    work = os.path.join(work_root, f'seed-{seed}')
    shutil.rmtree(work, ignore_errors=True)
    runner.write_program(work, prog)
    ok, expected = runner.build_reference(work, tools)
    if not ok:
        return seed, 'gen-error', expected
    status, text = compile_and_link(work, arch, tools)
    if status != 'built':
        return seed, status, text
    keep_app(work, os.path.join(out, f'seed-{seed}'), expected)
    shutil.rmtree(work, ignore_errors=True)
    return seed, 'built', ''


def build(args, tools):
    feats = parse_features(args.features)
    out = os.path.abspath(args.out)
    runner.copy_runtime(tools, out)
    shutil.copy(os.path.join(HERE, 'compare.py'), out)
    with open(os.path.join(out, 'run.sh'), 'w') as f:
        f.write(RUN_SH)
    os.chmod(os.path.join(out, 'run.sh'), 0o755)
    work_root = os.path.join(runner_work(), f'gpu-{os.getpid()}')
    counts = {}
    with cf.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futs = [pool.submit(build_one, s, feats, args.arch, tools, out, work_root)
                for s in range(args.seed, args.seed + args.count)]
        for fut in cf.as_completed(futs):
            seed, status, text = fut.result()
            counts[status] = counts.get(status, 0) + 1
            if status != 'built':
                print(f'seed {seed}: {status}: {text.strip()[:500]}')
    shutil.rmtree(work_root, ignore_errors=True)
    print(f'gpu batch in {out}: ' + ', '.join(f'{k} {v}' for k, v in sorted(counts.items())))
    print(f'copy it to the GPU machine and run {out}/run.sh')
    return 0 if counts.get('built', 0) == args.count else 1


def runner_work():
    return os.environ.get('QD_DIFFTEST_WORK', '/tmp/difftest-work')
