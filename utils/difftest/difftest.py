#!/usr/bin/env python3
"""qdc's differential tester: random race-free kernel programs, run through
qdc and through a serial C++ reference, outputs compared.

  difftest.py run [--seconds S] [--count N] [--seed S0] [--jobs 2] [--out DIR]
  difftest.py gen --seed S [--out DIR]         write prog.qd and main.cpp
  difftest.py check DIR                         check the program in DIR
  difftest.py reduce --seed S | --from DIR [--out DIR]   shrink a failure
  difftest.py gpu-batch --count N [--seed S0] --out DIR [--arch sm_90]

Common options: --features (generator.FEATURES; e.g. default,+param_writes),
--variants fused,nofuse,O0, --threads 1,4, --qdc, --include-dir, --lib-dir.
docs/difftest.md describes what it covers.
"""
import argparse
import concurrent.futures as cf
import os
import pickle
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpubatch  # noqa: E402
import reducer  # noqa: E402
import runner  # noqa: E402
from generator import generate, parse_features  # noqa: E402

WORK = os.environ.get('QD_DIFFTEST_WORK', '/tmp/difftest-work')


def tools_of(args):
    return runner.Tools(args.qdc, args.include_dir, args.lib_dir)


def one_seed(seed, features, variants, threads, tools, work_root, fail_dir):
    """Generates and checks one seed; keeps the files of a failure."""
    prog = generate(seed, features)
    work = os.path.join(work_root, f'seed-{seed}')
    shutil.rmtree(work, ignore_errors=True)
    runner.write_program(work, prog)
    o = runner.check(work, tools, variants, threads)
    if o.status != 'pass':
        dest = os.path.join(fail_dir, f'{o.status}-{seed}')
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        for name in ['prog.qd', 'main.cpp', 'expected.txt'] + [
                f for f in os.listdir(work) if f.startswith('actual-')]:
            if os.path.exists(os.path.join(work, name)):
                shutil.copy(os.path.join(work, name), dest)
        # The model, so that `reduce --from` works after the generator changed.
        with open(os.path.join(dest, 'prog.pickle'), 'wb') as f:
            pickle.dump(prog, f)
        with open(os.path.join(dest, 'outcome.txt'), 'w') as f:
            f.write(f'seed {seed}: {o.status} in variant {o.variant}, '
                    f'QD_CPU_THREADS={o.threads}\n{o.detail}\n')
    shutil.rmtree(work, ignore_errors=True)
    return seed, o.status, o.variant, o.threads, o.runs, o.detail


def cmd_run(args):
    feats = parse_features(args.features)
    variants = args.variants.split(',')
    threads = [int(t) for t in args.threads.split(',')]
    tools = tools_of(args)
    fail_dir = os.path.abspath(args.out)
    os.makedirs(fail_dir, exist_ok=True)
    work_root = os.path.join(WORK, f'run-{os.getpid()}')
    deadline = time.time() + args.seconds if args.seconds else None
    seeds = iter(range(args.seed, args.seed + args.count) if args.count else
                 range(args.seed, 1 << 62))
    counts = {}
    per_run = {}
    failures = []
    start = time.time()

    stop = []
    # SIGTERM ends the run after the programs in flight, with the summary.
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    def more():
        return not stop and (deadline is None or time.time() < deadline)

    with cf.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()
        for _ in range(args.jobs):
            s = next(seeds, None)
            if s is not None:
                pending.add(pool.submit(one_seed, s, feats, variants, threads, tools,
                                        work_root, fail_dir))
        while pending:
            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                seed, status, variant, nthreads, runs, detail = fut.result()
                counts[status] = counts.get(status, 0) + 1
                for r in runs:
                    per_run[r] = per_run.get(r, 0) + 1
                if status != 'pass':
                    failures.append((seed, status, variant, nthreads))
                    lines = detail.strip().splitlines()
                    first = [l for l in lines if 'error' in l][:2] or lines[:3]
                    print(f'seed {seed}: {status} ({variant}, {nthreads} threads): '
                          + ' | '.join(first), flush=True)
                if sum(counts.values()) % 50 == 0:
                    print(f'difftest: {sum(counts.values())} programs, '
                          + ', '.join(f'{k} {v}' for k, v in sorted(counts.items())), flush=True)
                if more():
                    s = next(seeds, None)
                    if s is not None:
                        pending.add(pool.submit(one_seed, s, feats, variants, threads, tools,
                                                work_root, fail_dir))
    shutil.rmtree(work_root, ignore_errors=True)
    ran = sum(counts.values())
    bad = ran - counts.get('pass', 0)
    print(f'difftest: ran {ran} programs in {int(time.time() - start)} s: '
          f'passed {counts.get("pass", 0)}, mismatched {counts.get("mismatch", 0)}, '
          f'refused {counts.get("refused", 0)}, crashed {counts.get("crash", 0)}, '
          f'generator errors {counts.get("gen-error", 0)}, '
          f'link errors {counts.get("link-error", 0)}, '
          f'environment errors {counts.get("env-error", 0)}')
    print('difftest: runs compared per variant/threads: ' +
          ', '.join(f'{v}/{t}: {n}' for (v, t), n in sorted(per_run.items())))
    if failures:
        print(f'difftest: failing seeds saved under {fail_dir}')
    return 1 if bad else 0


def cmd_gen(args):
    prog = generate(args.seed, parse_features(args.features))
    runner.write_program(args.out, prog)
    print(f'wrote {args.out}/prog.qd and {args.out}/main.cpp')
    return 0


def cmd_check(args):
    o = runner.check(os.path.abspath(args.dir), tools_of(args), args.variants.split(','),
                     [int(t) for t in args.threads.split(',')])
    print(f'{o.status} {o.variant or ""} {o.threads or ""}\n{o.detail}')
    return 0 if o.status == 'pass' else 1


def cmd_reduce(args):
    feats = parse_features(args.features)
    tools = tools_of(args)
    if args.from_dir:
        with open(os.path.join(args.from_dir, 'prog.pickle'), 'rb') as f:
            prog = pickle.load(f)
        args.seed = prog.seed
    else:
        prog = generate(args.seed, feats)
    work = os.path.join(WORK, f'reduce-{args.seed}-{os.getpid()}')
    shutil.rmtree(work, ignore_errors=True)
    runner.write_program(work, prog)
    first = runner.check(work, tools, args.variants.split(','),
                         [int(t) for t in args.threads.split(',')])
    if first.status in ('pass', 'gen-error'):
        print(f'seed {args.seed}: {first.status}; nothing to reduce')
        return 1
    variant, threads = [first.variant], [first.threads or 1]
    print(f'seed {args.seed}: {first.status} in {variant[0]}, {threads[0]} threads; reducing')

    def test(cand):
        shutil.rmtree(work, ignore_errors=True)
        runner.write_program(work, cand)
        return runner.check(work, tools, variant, threads).status == first.status

    small = reducer.reduce(prog, test, args.budget)
    shutil.rmtree(work, ignore_errors=True)
    runner.write_program(work, small)
    last = runner.check(work, tools, variant, threads)
    out = os.path.abspath(args.out or f'reduced-{args.seed}')
    os.makedirs(out, exist_ok=True)
    for name in ['prog.qd', 'main.cpp', 'expected.txt', f'actual-{variant[0]}-{threads[0]}.txt']:
        if os.path.exists(os.path.join(work, name)):
            shutil.copy(os.path.join(work, name), out)
    with open(os.path.join(out, 'outcome.txt'), 'w') as f:
        f.write(f'seed {args.seed} (features {args.features}): {last.status} in variant '
                f'{variant[0]} ({" ".join(runner.VARIANTS[variant[0]]) or "default flags"}), '
                f'QD_CPU_THREADS={threads[0]}\n{last.detail}\n')
    print(f'reduced program in {out}: {last.status}\n{last.detail}')
    shutil.rmtree(work, ignore_errors=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--qdc')
    ap.add_argument('--include-dir')
    ap.add_argument('--lib-dir')
    ap.add_argument('--features', default='default')
    ap.add_argument('--variants', default='fused,nofuse,O0')
    ap.add_argument('--threads', default='1,4')
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('run', help='check many seeds')
    r.add_argument('--seconds', type=float, default=0)
    r.add_argument('--count', type=int, default=0)
    r.add_argument('--seed', type=int, default=1)
    r.add_argument('--jobs', type=int, default=2)
    r.add_argument('--out', default='difftest-failures')
    g = sub.add_parser('gen', help='write one program')
    g.add_argument('--seed', type=int, required=True)
    g.add_argument('--out', default='.')
    c = sub.add_parser('check', help='check the program in a directory')
    c.add_argument('dir')
    d = sub.add_parser('reduce', help='shrink a failing seed')
    d.add_argument('--seed', type=int)
    d.add_argument('--from', dest='from_dir',
                   help='a failure directory of `run` (its prog.pickle)')
    d.add_argument('--out')
    d.add_argument('--budget', type=float, default=900, help='seconds')
    b = sub.add_parser('gpu-batch', help='build programs for a GPU machine')
    b.add_argument('--count', type=int, default=50)
    b.add_argument('--seed', type=int, default=1)
    b.add_argument('--arch', default='sm_90')
    b.add_argument('--jobs', type=int, default=2)
    b.add_argument('--out', required=True)
    args = ap.parse_args()
    if args.cmd == 'reduce' and args.seed is None and not args.from_dir:
        ap.error('reduce needs --seed or --from')
    if args.cmd == 'run' and not args.seconds and not args.count:
        args.count = 100
    handler = {'run': cmd_run, 'gen': cmd_gen, 'check': cmd_check, 'reduce': cmd_reduce,
               'gpu-batch': lambda a: gpubatch.build(a, tools_of(a))}[args.cmd]
    sys.exit(handler(args))


if __name__ == '__main__':
    main()
