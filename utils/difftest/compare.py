#!/usr/bin/env python3
"""Compares a program's printed outputs with the expected ones.

Lines look like `I name: v v v` (integers: exact) or `F name: v v v` (float
and double components: within the tolerance below). An expected output may
also hold `S name: s s s` lines: how far each float component moved when the
serial reference ran rounding up and rounding down (with_spread). A value
that moves by s under a change of the last bit of every operation can move as
much on a machine that rounds differently (an fma contraction on a GPU,
another libm's last bit), so its tolerance grows by SPREAD_FACTOR * s; a
value that does not move keeps the plain tolerance. Integers never get one.
Standalone, so that a GPU machine with only python3 can run it:

  compare.py expected.txt actual.txt    exit 0 if the same, 1 otherwise
"""
import math
import sys

# Floats (and doubles) match when |a - b| <= ABS_TOL + REL_TOL * max(|a|, |b|).
ABS_TOL = 1e-3
REL_TOL = 1e-4
SPREAD_FACTOR = 16


def parse(text):
    lines = {}
    order = []
    for line in text.splitlines():
        head, sep, vals = line.partition(':')
        parts = head.split(' ', 1)
        if not sep or len(parts) != 2 or parts[0] not in ('I', 'F', 'S'):
            continue
        if parts[0] == 'S':
            lines[('S', parts[1])] = vals.split()
            continue
        lines[parts[1]] = (parts[0], vals.split())
        order.append(parts[1])
    return order, lines


def with_spread(near, up, down):
    """near (the reference's output) with an S line after each F line: the
    larger distance of its components from the up and down runs'. Returns
    (text, problems): problems name integer outputs that changed with the
    rounding mode (floats reached an integer: a generator bug) and outputs
    missing from a run."""
    order, n = parse(near)
    runs = [parse(up)[1], parse(down)[1]]
    out, problems = [], []
    for name in order:
        kind, vals = n[name]
        out.append(f'{kind} {name}: {" ".join(vals)}')
        others = [r.get(name) for r in runs]
        if any(o is None or len(o[1]) != len(vals) for o in others):
            problems.append(f'{name}: missing or of another length when rounding up or down')
            continue
        if kind == 'I':
            if any(o[1] != vals for o in others):
                problems.append(f'{name}: an integer output depends on the rounding mode')
            continue
        spread = []
        for k, v in enumerate(vals):
            s = 0.0
            for o in others:
                try:
                    d = abs(float(o[1][k]) - float(v))
                except ValueError:
                    d = math.inf
                s = max(s, d if not math.isnan(d) else math.inf)
            spread.append(repr(s))
        out.append(f'S {name}: {" ".join(spread)}')
    return '\n'.join(out) + '\n', problems


def same_float(a, b, spread=0.0):
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    tol = ABS_TOL + REL_TOL * max(abs(x), abs(y)) + SPREAD_FACTOR * spread
    return abs(x - y) <= tol


def compare(expected, actual):
    """Returns a list of difference descriptions (empty: the same)."""
    order, exp = parse(expected)
    _, act = parse(actual)
    diffs = []
    for name in order:
        kind, ev = exp[name]
        if name not in act:
            diffs.append(f'{name}: missing from the output')
            continue
        av = act[name][1]
        if len(av) != len(ev):
            diffs.append(f'{name}: {len(av)} values, expected {len(ev)}')
            continue
        spread = exp.get(('S', name), [])
        for k, (e, a) in enumerate(zip(ev, av)):
            if kind == 'F':
                s = float(spread[k]) if k < len(spread) else 0.0
                ok = same_float(e, a, s)
            else:
                ok = e == a
            if not ok:
                diffs.append(f'{name}[{k}]: expected {e}, got {a}')
    return diffs



def main():
    with open(sys.argv[1]) as f:
        expected = f.read()
    with open(sys.argv[2]) as f:
        actual = f.read()
    diffs = compare(expected, actual)
    for d in diffs[:20]:
        print(d)
    sys.exit(1 if diffs else 0)


if __name__ == '__main__':
    main()
