#!/usr/bin/env python3
"""Runs the differential tester's programs many to a module.

Most of a program's check is qdc's start and the parse of <qd/qd.h>; a
module of P programs, each in a namespace of its own (`namespace s<seed>`),
pays it once. The packed module and one main that runs every program in
turn (their outputs named `s<seed>.<name>`) are checked exactly as one
program is (runner.check: the serial reference, each variant and thread
count). A pack that fails is checked again program by program, so that a
finding names its seed.

  pack.py run [--count N] [--per-pack P] [--seed S0] [--seconds T] [--jobs 2]
              [--out DIR] [--variants ...] [--threads ...] [--features ...]
  pack.py gpu-batch --count N [--per-pack P] [--seed S0] --out DIR [--arch sm_90]
                    [--options '-O0 -fno-fuse-tasks']
"""
import argparse
import concurrent.futures as cf
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import difftest  # noqa: E402
import gpubatch  # noqa: E402
import runner  # noqa: E402
from generator import generate, parse_features  # noqa: E402

WORK = os.environ.get('QD_DIFFTEST_WORK', '/tmp/difftest-work')


def pack_texts(programs):
    """The packed module (prog.qd) and its main (main.cpp) for programs."""
    qd, bodies = [], []
    prelude = None
    for p in programs:
        ns = f's{p.seed}'
        qd.append(f'namespace {ns} {{\n{p.qd_text()}}} // namespace {ns}\n')
        main = p.main_text()
        head, _, body = main.partition('int main() {\n')
        prelude = prelude or head
        body = body.replace('  qd::init();\n', '').replace('  return 0;\n', '')
        body = body.rstrip().removesuffix('}')
        body = body.replace('prog::', f'prog::{ns}::')
        body = re.sub(r'show(_value)?\("', lambda m: f'show{m.group(1) or ""}("{ns}.',
                      body)
        bodies.append(f'static void run_{ns}() {{\n{body}}}\n')
    runs = ''.join(f'  run_s{p.seed}();\n' for p in programs)
    main = (prelude + '\n'.join(bodies) +
            f'\nint main() {{\n  qd::init();\n{runs}  return 0;\n}}\n')
    return ''.join(qd), main


class Packed:
    """Looks like a generated program to runner.write_program."""

    def __init__(self, programs):
        self.qd, self.main = pack_texts(programs)

    def qd_text(self):
        return self.qd

    def main_text(self):
        return self.main


def reference_builds(seed, feats, tools, work_root):
    """Whether the serial reference of seed alone builds and runs."""
    work = os.path.join(work_root, f'ref-{seed}')
    shutil.rmtree(work, ignore_errors=True)
    runner.write_program(work, generate(seed, feats))
    ok = runner.build_reference(work, tools)[0]
    shutil.rmtree(work, ignore_errors=True)
    return ok


def check_pack(seeds, feats, variants, threads, tools, work_root, fail_dir):
    """Checks programs seeds packed; on a failure, each alone. Returns
    [(seed, status)]."""
    programs = [generate(s, feats) for s in seeds]
    work = os.path.join(work_root, f'pack-{seeds[0]}')
    shutil.rmtree(work, ignore_errors=True)
    runner.write_program(work, Packed(programs))
    if not runner.build_reference(work, tools)[0]:
        # A program whose own reference does not build (a generator bug)
        # leaves the pack; the rest are still checked together.
        bad = [s for s in seeds if not reference_builds(s, feats, tools, work_root)]
        rest = [s for s in seeds if s not in bad]
        if bad:
            return [(s, 'gen-error') for s in bad] + (
                check_pack(rest, feats, variants, threads, tools, work_root, fail_dir)
                if rest else [])
    o = runner.check(work, tools, variants, threads)
    if o.status == 'pass':
        shutil.rmtree(work, ignore_errors=True)
        return [(s, 'pass') for s in seeds]
    shutil.rmtree(work, ignore_errors=True)
    return [difftest.one_seed(s, feats, variants, threads, tools, work_root,
                              fail_dir)[:2] for s in seeds]


def run(args, tools):
    feats = parse_features(args.features)
    variants = args.variants.split(',')
    threads = [int(t) for t in args.threads.split(',')]
    fail_dir = os.path.abspath(args.out)
    os.makedirs(fail_dir, exist_ok=True)
    work_root = os.path.join(WORK, f'pack-run-{os.getpid()}')
    deadline = time.time() + args.seconds if args.seconds else None
    counts, next_seed, submitted = {}, args.seed, 0
    start = time.time()
    with cf.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()

        def submit():
            nonlocal next_seed, submitted
            n = min(args.per_pack, args.count - submitted) if args.count else args.per_pack
            seeds = list(range(next_seed, next_seed + n))
            next_seed += n
            submitted += n
            pending.add(pool.submit(check_pack, seeds, feats, variants, threads,
                                    tools, work_root, fail_dir))

        def more():
            if args.count and submitted >= args.count:
                return False
            return deadline is None or time.time() < deadline

        while len(pending) < args.jobs and more():
            submit()
        while pending:
            done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                pending.discard(fut)
                for seed, status in fut.result():
                    counts[status] = counts.get(status, 0) + 1
                    if status != 'pass':
                        print(f'seed {seed}: {status}', flush=True)
                if more():
                    submit()
    shutil.rmtree(work_root, ignore_errors=True)
    ran = sum(counts.values())
    print(f'difftest (packs of {args.per_pack}; variants {args.variants}; threads '
          f'{args.threads}): ran {ran} programs from seed {args.seed} in '
          f'{time.time() - start:.0f} s: ' +
          ', '.join(f'{k} {v}' for k, v in sorted(counts.items())), flush=True)
    return 0 if counts.get('pass', 0) == ran else 1


def gpu_batch(args, tools):
    """One directory per pack (app, expected.txt) and run.sh, as gpubatch."""
    feats = parse_features(args.features)
    out = os.path.abspath(args.out)
    runner.copy_runtime(tools, out)
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'compare.py'), out)
    with open(os.path.join(out, 'run.sh'), 'w') as f:
        f.write(gpubatch.RUN_SH)
    os.chmod(os.path.join(out, 'run.sh'), 0o755)
    work_root = os.path.join(WORK, f'pack-gpu-{os.getpid()}')
    packs = [list(range(s, min(s + args.per_pack, args.seed + args.count)))
             for s in range(args.seed, args.seed + args.count, args.per_pack)]

    def build_pack(seeds):
        work = os.path.join(work_root, f'pack-{seeds[0]}')
        shutil.rmtree(work, ignore_errors=True)
        runner.write_program(work, Packed([generate(s, feats) for s in seeds]))
        ok, expected = runner.build_reference(work, tools)
        if not ok:
            return seeds, 'gen-error', expected
        status, text = gpubatch.compile_and_link(work, args.arch, tools,
                                                 args.options.split())
        if status != 'built':
            return seeds, status, text
        # run.sh runs seed-*/app: one directory per pack, named by its first.
        gpubatch.keep_app(work, os.path.join(out, f'seed-{seeds[0]}'), expected)
        shutil.rmtree(work, ignore_errors=True)
        return seeds, 'built', ''

    built = 0
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for seeds, status, text in pool.map(build_pack, packs):
            if status == 'built':
                built += len(seeds)
            else:
                print(f'pack {seeds[0]}..{seeds[-1]}: {status}: {text.strip()[:800]}')
    shutil.rmtree(work_root, ignore_errors=True)
    print(f'gpu batch in {out}: {built} of {args.count} programs in '
          f'{len(packs)} packs; run {out}/run.sh there')
    return 0 if built == args.count else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--features', default='default')
    ap.add_argument('--qdc')
    ap.add_argument('--include-dir')
    ap.add_argument('--lib-dir')
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('run')
    r.add_argument('--count', type=int, default=0)
    r.add_argument('--seconds', type=float, default=0)
    r.add_argument('--per-pack', type=int, default=40)
    r.add_argument('--seed', type=int, default=1)
    r.add_argument('--jobs', type=int, default=2)
    r.add_argument('--out', default='difftest-failures')
    r.add_argument('--variants', default='fused,nofuse,O0')
    r.add_argument('--threads', default='1,4')
    g = sub.add_parser('gpu-batch')
    g.add_argument('--count', type=int, required=True)
    g.add_argument('--per-pack', type=int, default=50)
    g.add_argument('--seed', type=int, default=1)
    g.add_argument('--jobs', type=int, default=2)
    g.add_argument('--out', required=True)
    g.add_argument('--arch', default='sm_90')
    g.add_argument('--options', default='',
                   help="more qdc options, e.g. '-O0 -fno-fuse-tasks'")
    args = ap.parse_args()
    tools = runner.Tools(args.qdc, args.include_dir, args.lib_dir)
    if args.cmd == 'run':
        if not args.count and not args.seconds:
            args.count = 200
        return run(args, tools)
    return gpu_batch(args, tools)


if __name__ == '__main__':
    sys.exit(main())
