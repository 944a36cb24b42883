"""Shrinks a failing generated program while its failure persists.

The reducer works on the program model: it deletes host calls, kernels,
QD_FUNCs and statements, replaces an if by its branch, and replaces
expressions by one of their operands of the same type or by a zero. Each
candidate is checked with a caller-supplied test; a candidate is kept when
the test still fails the same way. Because every expression node prints as
code defined for all operand values, the candidates stay free of undefined
behaviour; a candidate that no longer compiles fails the reference build and
is dropped.
"""
import copy
import time

from model import VEC_TYPES, If, is_int, leaf


def zero(ty):
    if ty in VEC_TYPES:
        return f'{ty}{{}}'
    if is_int(ty):
        return f'{ty}(0)'
    return '0.0f' if ty == 'float' else '0.0'


# ---- edit sites --------------------------------------------------------------
def stmt_lists(prog):
    """Every (list, owner) of statements, outermost first."""
    out = []

    def walk(stmts):
        out.append(stmts)
        for s in stmts:
            for attr in s.lists:
                walk(getattr(s, attr))

    for k in prog.kernels:
        walk(k.body)
    # Outer lists first: bigger deletions before smaller ones.
    return out


def expr_slots(prog):
    """Every (holder, key) whose value is an Expr: holder[key] or
    getattr(holder, key)."""
    slots = []

    def visit_expr(holder, key, e):
        if e is None:
            return
        if not e.fixed:
            slots.append((holder, key))
        for i, kid in enumerate(e.kids):
            visit_expr(e.kids, i, kid)

    def visit_stmt(s):
        for attr in s.exprs:
            v = getattr(s, attr)
            if isinstance(v, list):
                for i, e in enumerate(v):
                    visit_expr(v, i, e)
            else:
                visit_expr(s, attr, v)
        for attr in s.lists:
            for c in getattr(s, attr):
                visit_stmt(c)

    for fn in prog.funcs:
        if 'body' in fn.exprs:
            visit_expr(fn, 'body', fn.body)
    for k in prog.kernels:
        for s in k.body:
            visit_stmt(s)
        visit_expr(k, 'ret_expr', k.ret_expr)
    return slots


def get(holder, key):
    return holder[key] if isinstance(holder, list) else getattr(holder, key)


def put(holder, key, value):
    if isinstance(holder, list):
        holder[key] = value
    else:
        setattr(holder, key, value)


def edits(prog):
    """Names of the edits possible on prog, in the order they are tried;
    apply(prog_copy, edit) performs one on a copy."""
    out = [('call', i) for i in range(len(prog.calls))]
    out += [('kernel', i) for i in range(len(prog.kernels))]
    out += [('func', i) for i in range(len(prog.funcs))]
    for li, stmts in enumerate(stmt_lists(prog)):
        out += [('stmt', li, i) for i in range(len(stmts))]
        out += [('unif', li, i) for i, s in enumerate(stmts) if isinstance(s, If)]
    for si, (holder, key) in enumerate(expr_slots(prog)):
        out.append(('zero', si))
        if any(k.ty == get(holder, key).ty for k in get(holder, key).kids):
            out.append(('kid', si))
    out += [('field', i) for i in range(len(prog.fields))]
    return out


def apply(prog, edit):
    kind = edit[0]
    if kind == 'call':
        del prog.calls[edit[1]]
    elif kind == 'kernel':
        name = prog.kernels[edit[1]].name
        del prog.kernels[edit[1]]
        prog.calls = [c for c in prog.calls if c.kernel != name]
    elif kind == 'func':
        del prog.funcs[edit[1]]
    elif kind in ('stmt', 'unif'):
        stmts = stmt_lists(prog)[edit[1]]
        s = stmts[edit[2]]
        if getattr(s, 'keep', False):
            return False
        stmts[edit[2]:edit[2] + 1] = s.then if kind == 'unif' else []
    elif kind in ('zero', 'kid'):
        holder, key = expr_slots(prog)[edit[1]]
        e = get(holder, key)
        if kind == 'zero':
            if not e.kids and e.fmt == zero(e.ty):
                return False
            put(holder, key, leaf(e.ty, zero(e.ty)))
        else:
            put(holder, key, next(k for k in e.kids if k.ty == e.ty))
    elif kind == 'field':
        del prog.fields[edit[1]]
    return True


def reduce(prog, test, budget_s=900, log=print):
    """Returns the smallest program found for which test(program) is true
    (test(prog) must be true to begin with)."""
    start = time.time()
    changed = True
    tries = 0
    while changed and time.time() - start < budget_s:
        changed = False
        i = 0
        while time.time() - start < budget_s:
            names = edits(prog)
            if i >= len(names):
                break
            cand = copy.deepcopy(prog)
            tries += 1
            if apply(cand, names[i]) and test(cand):
                prog = cand
                changed = True
                log(f'  reduced: {names[i]} ({len(edits(prog))} edits left, '
                    f'{int(time.time() - start)} s)')
            else:
                i += 1
    log(f'  {tries} candidates tried in {int(time.time() - start)} s')
    return prog
