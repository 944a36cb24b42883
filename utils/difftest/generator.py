"""Random generator of race-free kernel programs for the differential tester.

generate(seed, features) builds a model.Program. Race freedom comes from how
parallel loops are built: a loop chooses the arrays it writes up front, and
iteration i touches those only at its own index (an injective affine function
of i in the leading dimensions, anything in the others); every other array it
reads anywhere. Kernel scalars are read by the loops that do not reduce them.
Integer arithmetic wraps through unsigned types, divisors are never zero,
shift counts stay below the width; floats stay finite (bounded stores,
reductions of exactly representable terms in float, double elsewhere).

Features (see FEATURES) switch constructs on and off; the default set leaves
out the ones known to be broken.
"""
import os
import random

from model import (BITS, FLOAT_TYPES, INT_TYPES, VEC_TYPES, Array, Assign, Block, Call,
                   Decl, DoWhile, Expr, Func, HostCall, If, Kernel, LadderFunc, Loop, Param,
                   Program,
                   component_type, is_int, is_signed, leaf, wide_unsigned)

# How often a parallel loop gets a qd::loop_config (block sizes, tiles,
# parallelize); QD_DIFFTEST_CONFIG_RATE=1 gives every loop one, for a
# campaign on launch shapes.
CONFIG_RATE = float(os.environ.get('QD_DIFFTEST_CONFIG_RATE', '0.15'))

FEATURES = {
    'float': True,         # float and double values, with a tolerance
    'nested': True,        # serial loops and ifs inside loop bodies
    'funcs': True,         # QD_FUNC chains
    'scalars': True,       # kernel scalars, reductions, return values
    'ndarray': True,       # ndarray parameters of 1-3 dimensions
    'multidim': True,      # fields of 2 and 3 dimensions, ndrange loops
    'stream': True,        # QD_STREAM_PARALLEL kernels
    'vec': True,           # qd::vec / qd::mat elements and values
    'dowhile': True,       # QD_GRAPH kernels with qd::graph::do_while
    'config': True,        # qd::loop_config (block_dim, serialize, parallelize)
    'pointers': True,      # raw pointer parameters (read in loop bodies only)
    'dynrange': True,      # loop ranges that read kernel scalars and fields
    'atomics': True,       # qd::atomic_<op> on array elements in parallel loops
    'bool': True,          # bool elements of fields and ndarrays, logical operators
    'vec_reduce': True,    # component-wise qd::min/max of vectors, qd::sum(v)
    'floordiv': True,      # qd::floordiv and qd::mod (Python's // and %) on integers
    'mixed_range': True,   # qd::range(int, int64_t)
    'ipow': True,          # qd::pow of two integers (exact, wrapping)
    'vec_select': True,    # qd::select(qd::less(a, b), c, d) on vectors
    'vec_index': True,     # fields and ndarrays indexed by an integer vector
    'noalias': True,       # QD_NOALIAS kernels, __restrict__ pointers (arrays are distinct)
    'if_chains': True,     # `if`/`else if` chains 8-30 deep: a warp's lanes part ways
    'ladders': True,       # chains of 15-35 QD_FUNCs that return early, called from expressions
    'column_walks': True,  # a serial loop down an ndarray's column (a pointer stepped by a row)
    # Once broken, now fixed (each has a regression test in test/e2e/trust.qd):
    'param_writes': True,     # writes to scalar parameters at the top level
    'pointer_hoist': True,    # pointer reads in top-level locals and ranges
    'dynrange_self': True,    # a loop range reading memory the loop writes
    'ternary_lvalue': True,   # `c ? a : b` of lvalues (findings/ternary-lvalue-read.qd)
    'dowhile_nested_local': True,  # findings/dowhile-nested-local.qd
    'atomic_temp': True,      # temporaries in atomic reductions (findings/atomic-reduction-temporary.qd)
}


def parse_features(spec):
    """'default', 'all', or a comma list like 'default,-vec,+param_writes'."""
    feats = dict(FEATURES)
    for item in (spec or 'default').split(','):
        item = item.strip()
        if item in ('', 'default'):
            continue
        if item == 'all':
            feats = {k: True for k in feats}
            continue
        on = not item.startswith('-')
        name = item.lstrip('+-')
        if name not in feats:
            raise SystemExit(f'unknown feature {name!r}; known: {", ".join(feats)}')
        feats[name] = on
    return feats


def int_literal(ty, v):
    if ty == 'int64_t':
        return f'int64_t({v}ll)'
    if ty == 'uint64_t':
        return f'uint64_t({v}ull)'
    if ty.startswith('u'):
        return f'{ty}({v}u)'
    return f'{ty}({v})'


def float_literal(ty, v):
    s = repr(float(v))
    return f'{s}f' if ty == 'float' else s


class Access:
    """How a scope may touch an array: fixed (index texts of the leading
    dimensions, or None for any index) and writable."""

    def __init__(self, array, ref, fixed=None, writable=False, linear=False):
        self.array, self.ref, self.fixed, self.writable = array, ref, fixed, writable
        self.linear = linear  # a raw pointer: one index over the whole storage

    def shape(self):
        return [self.array.size()] if self.linear else self.array.shape


class Scope:
    """What the code being generated may use."""

    def __init__(self, variables, accesses, serial, reductions=None, in_loop=False,
                 atomics=None):
        self.vars = list(variables)          # (text, type)
        self.accesses = list(accesses)
        self.serial = serial                 # writes of anything allowed
        self.reductions = reductions or {}   # scalar name -> (type, op)
        self.in_loop = in_loop
        self.atomics = atomics or []         # accesses updated only atomically

    def child(self, extra_vars=()):
        return Scope(self.vars + list(extra_vars), self.accesses, self.serial,
                     self.reductions, self.in_loop, self.atomics)


class Gen:
    def __init__(self, seed, features):
        self.r = random.Random(seed)
        self.f = features
        self.prog = Program(seed, features)
        self.names = 0
        self.ladder_sums = set()  # reducible scalars meant for ladder sums

    def name(self, prefix):
        self.names += 1
        return f'{prefix}{self.names}'

    def chance(self, p):
        return self.r.random() < p

    # ---- types and values --------------------------------------------------
    def scalar_type(self, ints_only=False):
        if not ints_only and self.f['float'] and self.chance(0.35):
            return self.r.choice(FLOAT_TYPES)
        return self.r.choice(INT_TYPES + ['int32_t'] * 3)

    def elem_type(self):
        if self.f['vec'] and self.chance(0.12):
            return self.r.choice(list(VEC_TYPES))
        if self.f['bool'] and self.chance(0.07):
            return 'bool'
        return self.scalar_type()

    def int_value(self, ty):
        bits = BITS[ty]
        if self.chance(0.8):
            v = self.r.randint(-20, 40)
        else:
            v = self.r.getrandbits(bits - (1 if is_signed(ty) else 0))
            if is_signed(ty) and self.chance(0.5):
                v = -v
        if not is_signed(ty):
            v %= 1 << bits
        return v

    def float_value(self):
        return self.r.randint(-32, 32) / 4

    def literal(self, ty):
        if ty in VEC_TYPES:
            comp, rows, cols = VEC_TYPES[ty]
            if rows == 1:
                return f'{ty}{{{", ".join(self.literal(comp) for _ in range(cols))}}}'
            return ty + '{' + ', '.join(
                '{' + ', '.join(self.literal(comp) for _ in range(cols)) + '}'
                for _ in range(rows)) + '}'
        if ty == 'bool':
            return 'true' if self.chance(0.5) else 'false'
        if is_int(ty):
            return int_literal(ty, self.int_value(ty))
        return float_literal(ty, self.float_value())

    def init_values(self, elem, n):
        return [self.literal(elem) for _ in range(n)]

    # ---- arrays ------------------------------------------------------------
    def shape(self):
        rank = 1
        if self.f['multidim'] and self.chance(0.35):
            rank = 2 if self.chance(0.7) else 3
        if rank == 1:
            return [self.r.choice([1, 3, 8, 16, 33, 64, 100, 257, 1100, 1500])]
        if rank == 2:
            return [self.r.randint(1, 24), self.r.randint(1, 24)]
        return [self.r.randint(1, 7) for _ in range(3)]

    def new_field(self):
        elem = self.elem_type()
        shape = [] if self.chance(0.06) else self.shape()
        a = Array(self.name('f'), elem, shape, 'field', None)
        a.init = self.init_values(elem, a.size())
        self.prog.fields.append(a)
        return a

    def new_host_array(self, pointer=False):
        elem = self.elem_type() if not pointer else self.scalar_type()
        shape = self.shape() if not pointer else [self.r.choice([8, 16, 64, 300])]
        a = Array(self.name('h'), elem, shape, 'host', None)
        a.init = self.init_values(elem, a.size())
        self.prog.host_arrays.append(a)
        return a

    # ---- expressions -------------------------------------------------------
    def expr(self, ty, sc, depth=3, mul=0):
        """An expression of type ty (scalar, vector or matrix)."""
        if ty in VEC_TYPES:
            return self.vec_expr(ty, sc, depth, mul)
        if depth <= 0 or self.chance(0.25):
            return self.leaf(ty, sc, depth, mul)
        if ty == 'bool':
            return self.bool_expr(sc, depth)
        if is_int(ty):
            return self.int_expr(ty, sc, depth)
        return self.float_expr(ty, sc, depth, mul)

    def bool_expr(self, sc, depth):
        e = lambda t='bool': self.expr(t, sc, depth - 1)
        k = self.r.randint(0, 5)
        if k <= 1:
            t2 = self.scalar_type(ints_only=True)
            op = self.r.choice(['<', '<=', '==', '!=', '>'])
            return Expr('bool', f'({{0}} {op} {{1}})', [e(t2), e(t2)])
        if k == 2:
            return Expr('bool', '(!{0})', [e()])
        if k == 3:
            op = self.r.choice(['&&', '||', '!=', '=='])
            return Expr('bool', f'({{0}} {op} {{1}})', [e(), e()])
        if k == 4:
            # An integer made bool: any non-zero value is true.
            t2 = self.scalar_type(ints_only=True)
            return Expr('bool', 'bool({0})', [e(t2)])
        return self.leaf('bool', sc, depth, 0)

    def int_expr(self, ty, sc, depth):
        e = lambda t=ty: self.expr(t, sc, depth - 1)
        u = wide_unsigned(ty)
        k = self.r.randint(0, 12)
        if k <= 3:
            op = self.r.choice(['+', '-', '*', '&', '|', '^'])
            return Expr(ty, f'{ty}({u}({{0}}) {op} {u}({{1}}))', [e(), e()])
        if k == 4:
            if self.f['ipow'] and self.chance(0.2):
                return Expr(ty, f'{ty}(qd::pow({{0}}, int(({{1}} & 7) - 2)))', [e(), e()])
            if self.f['floordiv'] and self.chance(0.3):
                f = self.r.choice(['floordiv', 'mod'])
                return Expr(ty, f'qd::{f}({ty}({{0}}), {ty}(({{1}} & 15) + 1))', [e(), e()])
            op = self.r.choice(['/', '%'])
            return Expr(ty, f'{ty}({{0}} {op} {ty}(({{1}} & 15) + 1))', [e(), e()])
        if k == 5:
            mask = 63 if BITS[ty] == 64 else 31
            w = BITS[ty] - 1
            if self.chance(0.5):
                return Expr(ty, f'{ty}({u}({{0}}) << (int({{1}}) & {w}))', [e(), e()])
            return Expr(ty, f'{ty}({{0}} >> (int({{1}}) & {min(w, mask)}))', [e(), e()])
        if k == 6:
            t2 = self.scalar_type(ints_only=True)
            op = self.r.choice(['<', '<=', '==', '!=', '>'])
            return Expr(ty, f'{ty}({{0}} {op} {{1}})', [e(t2), e(t2)])
        if k == 7:
            t2 = self.scalar_type(ints_only=True)
            if self.f['ternary_lvalue']:
                return Expr(ty, '({0} < {1} ? {2} : {3})', [e(t2), e(t2), e(), e()])
            # Operands made prvalues: findings/ternary-lvalue-read.qd.
            return Expr(ty, f'({{0}} < {{1}} ? {ty}({{2}}) : {ty}({{3}}))',
                        [e(t2), e(t2), e(), e()])
        if k == 8:
            t2 = self.scalar_type(ints_only=True)
            if self.f['bool'] and self.chance(0.25):
                t2 = 'bool'
            return Expr(ty, f'{ty}({{0}})', [e(t2)])
        if k == 9 and self.f['funcs']:
            c = self.func_call(ty, sc, depth)
            if c:
                return c
        if k == 10:
            return Expr(ty, f'{ty}({u}(0) - {u}({{0}}))', [e()])
        if k == 11:
            return Expr(ty, f'{ty}(~{u}({{0}}))', [e()])
        return self.leaf(ty, sc, depth, 0)

    def float_expr(self, ty, sc, depth, mul):
        e = lambda t=ty, m=mul: self.expr(t, sc, depth - 1, m)
        k = self.r.randint(0, 13)
        if k <= 2:
            return Expr(ty, f'({{0}} {self.r.choice("+-")} {{1}})', [e(), e()])
        if k == 3 and mul < 2:
            return Expr(ty, '({0} * {1})', [e(m=mul + 1), e(m=mul + 1)])
        if k == 4:
            f = self.r.choice(['min', 'max'])
            return Expr(ty, f'qd::{f}({{0}}, {{1}})', [e(), e()])
        if k == 5:
            one = float_literal(ty, 1)
            return Expr(ty, f'({{0}} / (qd::abs({{1}}) + {one}))', [e(), e()])
        if k == 6:
            # Continuous functions only: a last-bit difference (an fma
            # contraction, a libm's last bit) must not become a large one;
            # sin and cos of a large argument would make it one.
            lo, hi = float_literal(ty, -64), float_literal(ty, 64)
            f = self.r.choice(['qd::abs({0})', 'qd::sqrt(qd::abs({0}))',
                               f'qd::sin(qd::clamp({{0}}, {lo}, {hi}))',
                               f'qd::cos(qd::clamp({{0}}, {lo}, {hi}))'])
            return Expr(ty, f, [e()])
        if k == 7 and mul < 2:
            return Expr(ty, 'qd::fma({0}, {1}, {2})', [e(m=mul + 1), e(m=mul + 1), e()])
        if k == 8:
            lo, hi = float_literal(ty, -4), float_literal(ty, 4)
            return Expr(ty, f'qd::clamp({{0}}, {lo}, {hi})', [e()])
        if k == 9:
            other = 'double' if ty == 'float' else 'float'
            return Expr(ty, f'{ty}({{0}})', [e(other)])
        if k == 10 and self.f['funcs']:
            c = self.func_call(ty, sc, depth)
            if c:
                return c
        if k == 11 and self.f['vec'] and mul < 2:
            vt = self.r.choice([v for v, (c, r, _) in VEC_TYPES.items() if c == ty and r == 1])
            if self.f['vec_reduce'] and self.chance(0.3):
                return Expr(ty, 'qd::sum({0})', [self.expr(vt, sc, depth - 1, mul)])
            return Expr(ty, 'qd::dot({0}, {1})', [self.expr(vt, sc, depth - 1, mul + 1),
                                                  self.expr(vt, sc, depth - 1, mul + 1)])
        return self.leaf(ty, sc, depth, mul)

    def vec_expr(self, ty, sc, depth, mul):
        comp, rows, cols = VEC_TYPES[ty]
        e = lambda t=ty, m=mul: self.expr(t, sc, depth - 1, m)
        k = self.r.randint(0, 5) if depth > 0 else 5
        # No arithmetic on integer vectors: it could overflow.
        if k == 0 and not is_int(comp):
            return Expr(ty, '({0} + {1})', [e(), e()])
        if k == 1 and mul < 2 and rows == 1 and not is_int(comp):
            return Expr(ty, '({0} * {1})', [e(m=mul + 1), e(comp, mul + 1)])
        if k == 2 and rows == 1 and not is_int(comp) and mul < 2:
            mt = {('float', 2): 'qd::mat2', ('double', 2): 'qd::dmat2'}.get((comp, cols))
            if mt:
                return Expr(ty, '({0} * {1})', [e(mt, mul + 1), e(m=mul + 1)])
        if k == 3 and rows == 2:
            return Expr(ty, 'qd::transpose({0})', [e()])
        if k == 3 and rows == 1 and not is_int(comp) and self.f['vec_select'] \
                and self.chance(0.3):
            f = self.r.choice(['less', 'less_equal', 'greater', 'greater_equal', 'equal',
                               'not_equal'])
            return Expr(ty, f'qd::select(qd::{f}({{0}}, {{1}}), {{2}}, {{3}})',
                        [e(), e(), e(), e()])
        if k == 3 and rows == 1 and not is_int(comp) and self.f['vec_reduce']:
            f = self.r.choice(['min', 'max'])
            return Expr(ty, f'qd::{f}({{0}}, {{1}})', [e(), e()])
        if k == 4 or depth <= 0:
            reads = self.readable(ty, sc)
            if reads and self.chance(0.7):
                return self.array_read(self.r.choice(reads), sc, depth)
        # Built from components.
        def comp_expr():
            return self.expr(comp, sc, max(depth - 1, 0), mul)
        if rows == 1:
            kids = [comp_expr() for _ in range(cols)]
            fmt = ty + '{{' + ', '.join('{%d}' % i for i in range(cols)) + '}}'
            return Expr(ty, fmt, kids)
        kids = [comp_expr() for _ in range(rows * cols)]
        parts = ['{{' + ', '.join('{%d}' % (r * cols + c) for c in range(cols)) + '}}'
                 for r in range(rows)]
        return Expr(ty, ty + '{{' + ', '.join(parts) + '}}', kids)

    def func_call(self, ty, sc, depth):
        fns = [fn for fn in self.prog.funcs
               if fn.ret == ty and getattr(fn, 'callable', True)]
        if not fns:
            return None
        fn = self.r.choice(fns)
        kids = [self.expr(t, sc, depth - 1) for _, t in fn.params]
        # Each argument in parentheses: g++ 12 took `u(fn(T(x), U(x)))`
        # after a `(` for a declaration of fn's parameters (two named x: an
        # error; seed 40236), which no parameter declaration can begin with.
        args = ", ".join("({%d})" % i for i in range(len(kids)))
        return Expr(ty, f'{fn.name}({args})', kids)

    def readable(self, ty, sc):
        """Accesses whose elements (or components) give a value of type ty."""
        return [a for a in sc.accesses
                if a.array.elem == ty or (ty not in VEC_TYPES and component_type(a.array.elem) == ty)]

    def leaf(self, ty, sc, depth, mul):
        k = self.r.randint(0, 9)
        if k <= 2:
            vs = [v for v, t in sc.vars if t == ty]
            if vs:
                return leaf(ty, self.r.choice(vs))
            if is_int(ty):
                vs = [(v, t) for v, t in sc.vars if is_int(t)]
                if vs:
                    v, t = self.r.choice(vs)
                    return leaf(ty, f'{ty}({v})')
        if k <= 6:
            reads = self.readable(ty, sc)
            if reads:
                return self.array_read(self.r.choice(reads), sc, depth, ty)
        if k == 7 and ty in FLOAT_TYPES + ['bool'] and depth > 0:
            t2 = self.r.choice(INT_TYPES)
            return Expr(ty, f'{ty}(int32_t(int64_t({{0}}) % 61))', [self.expr(t2, sc, depth - 1)])
        return leaf(ty, self.literal(ty))

    def index(self, size, sc, depth):
        """A free index into a dimension of `size`: always in bounds."""
        if self.chance(0.3) or depth <= 0:
            return leaf('int32_t', str(self.r.randrange(size)))
        t = self.r.choice(['int32_t', 'int64_t', 'uint32_t', 'uint16_t'])
        return Expr('int32_t', f'int32_t(uint32_t({{0}}) % {size}u)',
                    [self.expr(t, sc, min(depth - 1, 1))], fixed=True)

    def element(self, acc, sc, depth, vec_index=False):
        """An lvalue Expr for an element of acc (its own one when fixed)."""
        shape = acc.shape()
        fixed = acc.fixed or []
        kids = [leaf('int32_t', t, fixed=True) for t in fixed]
        kids += [self.index(s, sc, depth) for s in shape[len(fixed):]]
        holes = ['{%d}' % i for i in range(len(kids))]
        if not shape:
            fmt = f'{acc.ref}()'
        elif len(shape) == 1 and (vec_index or (not kids[0].kids and
                                                kids[0].fmt.isdigit())):
            fmt = f'{acc.ref}[{holes[0]}]'
        elif len(shape) == 1:
            # Inside an expression, an index that is not a literal is read
            # with () (a pointer: `*(p + i)`): g++ reads `uint32_t(p[int32_t(i
            # % 300u)])` in a nested functional cast as a parameter of
            # variably modified type and refuses the reference program (seed
            # 24414).
            fmt = (f'*({acc.ref} + {holes[0]})' if acc.linear else
                   f'{acc.ref}({holes[0]})')
        elif vec_index and self.f['vec_index'] and self.chance(0.4):
            # Only where a statement starts (writes, atomics): inside an
            # expression, g++ reads `int16_t(uint32_t(f[qd::vec<...>{...}]))`
            # as the type of a function taking an array f, and refuses the
            # reference program.
            fmt = acc.ref + '[qd::vec<int64_t, %d>{{' % len(shape) + ', '.join(holes) + '}}]'

        else:
            fmt = f'{acc.ref}({", ".join(holes)})'
        return Expr(acc.array.elem, fmt, kids, fixed=True)

    def array_read(self, acc, sc, depth, want=None):
        el = self.element(acc, sc, depth)
        elem = acc.array.elem
        if want is None or want == elem:
            return el
        comp, rows, cols = VEC_TYPES[elem]
        if rows == 1:
            # A rank-0 field's component by name only: g++ parses
            # `int32_t(uint32_t(f1()[2]) * n)` as a function type (f1 a
            # function returning an array) and refuses it.
            by_name = self.chance(0.6) or not acc.array.shape
            c = self.r.choice('xyzw'[:cols]) if by_name else f'[{self.r.randrange(cols)}]'
            fmt = '{0}.' + c if not c.startswith('[') else '{0}' + c
        else:
            fmt = '{0}' + f'({self.r.randrange(rows)}, {self.r.randrange(cols)})'
        return Expr(comp, fmt, [el], fixed=True)

    # ---- QD_FUNCs ----------------------------------------------------------
    def funcs(self):
        for _ in range(self.r.randint(0, 4)):
            ret = self.scalar_type()
            params = [(f'a{i}', self.scalar_type()) for i in range(self.r.randint(1, 3))]
            sc = Scope(params, [], serial=False)
            body = self.expr(ret, sc, 3)
            self.prog.funcs.append(Func(self.name('fn'), ret, params, body))
        if self.f['ladders'] and self.chance(0.3):
            self.ladder()

    def ladder(self):
        """A chain of LadderFuncs, the deepest first (each calls the next)."""
        names = [self.name('lad') for _ in range(self.r.randint(15, 35))]
        chain = [LadderFunc(names[-1])]
        for k in range(len(names) - 2, -1, -1):
            # Fewer lanes leave at each level than at the one before: many
            # go deep, and they part ways level by level.
            m = k + 2 + self.r.randint(0, 3)
            chain.append(LadderFunc(names[k], names[k + 1], m, self.r.randint(0, m - 1),
                                    self.r.randint(1, 9), self.r.randint(-50, 50),
                                    callable_=k == 0))
        self.prog.funcs += chain

    # ---- statements --------------------------------------------------------
    @staticmethod
    def bounded(ty, v):
        """v clamped to [-1000, 1000] when it holds floats: every stored
        float stays finite however often loops repeat, so no NaN arises (whose
        handling by min, max and clamp the language leaves open)."""
        comp = component_type(ty)
        if comp not in FLOAT_TYPES:
            return v
        lo, hi = float_literal(comp, -1000), float_literal(comp, 1000)
        clamp = 'qd::clamp({0}%s, %s, %s)' % ('%s', lo, hi)
        if ty in FLOAT_TYPES:
            return Expr(ty, clamp % '', [v], fixed=True)
        _, rows, cols = VEC_TYPES[ty]
        if rows == 1:
            parts = [clamp.replace('{0}', '({0})') % f'[{c}]' for c in range(cols)]
            return Expr(ty, ty + '{{' + ', '.join(parts) + '}}', [v], fixed=True)
        rows_txt = ['{{' + ', '.join(clamp.replace('{0}', '({0})') % f'({r}, {c})'
                                     for c in range(cols)) + '}}' for r in range(rows)]
        return Expr(ty, ty + '{{' + ', '.join(rows_txt) + '}}', [v], fixed=True)

    def store_value(self, elem, sc, depth, target=None):
        """A value for a store of elem, bounded."""
        v = self.bounded(elem, self.expr(elem, sc, depth))
        if target is not None and is_int(elem) and self.chance(0.3):
            u = wide_unsigned(elem)
            v = Expr(elem, f'{elem}({u}({{0}}) + {u}({{1}}))', [target, v], fixed=True)
        return v

    def write(self, acc, sc, depth):
        lhs = self.element(acc, sc, depth, vec_index=True)
        return Assign(lhs, self.store_value(acc.array.elem, sc, depth, lhs))

    def reduction(self, sc, depth):
        name = self.r.choice(sorted(sc.reductions))
        ty, op = sc.reductions[name]
        if op.startswith('qd::'):
            v = self.expr(ty, sc, depth)
            if '{' in v.text() and not self.f['atomic_temp']:
                # A value building a temporary goes through a local first:
                # findings/atomic-reduction-temporary.qd.
                t = self.name('t')
                return [Decl(ty, t, v), Call(Expr(ty, f'{op}({name}, {t})', [], fixed=True))]
            return Call(Expr(ty, f'{op}({name}, {{0}})', [v], fixed=True))
        if ty == 'float':
            t2 = self.r.choice(INT_TYPES)
            v = Expr(ty, 'float(int32_t(int64_t({0}) % 61))', [self.expr(t2, sc, depth)], fixed=True)
        elif is_signed(ty) and op in ('+=', '-='):
            v = Expr(ty, f'{ty}({{0}} % 1000)', [self.expr(ty, sc, depth)], fixed=True)
        else:
            v = self.expr(ty, sc, depth)
        return Assign(leaf(ty, name, fixed=True), v, op)

    def ladder_call(self, sc):
        """When the program has a ladder (LadderFunc) and sc a loop index:
        its first level called with the index, as text (else None)."""
        tops = [fn for fn in self.prog.funcs if isinstance(fn, LadderFunc) and fn.callable]
        idx = [v for v, _ in sc.vars if v.startswith('i')]
        if not tops or not idx:
            return None
        return f'{self.r.choice(tops).name}(int32_t({self.r.choice(idx)}))'

    def atomic(self, sc, depth):
        """An atomic update of any element of an array the loop touches
        only atomically."""
        acc = self.r.choice(sc.atomics)
        ty = acc.array.elem
        # One operation per array and loop: two different ones (xor, then
        # max) do not commute, and the iterations' order would decide.
        op = acc.atomic_op
        v = self.expr(ty, sc, depth)
        if is_signed(ty) and op in ('add', 'sub'):
            v = Expr(ty, f'{ty}({{0}} % 1000)', [v], fixed=True)
        el = self.element(acc, sc, depth, vec_index=True)
        return Call(Expr(ty, f'qd::atomic_{op}({{0}}, {{1}})', [el, v], fixed=True))

    def body(self, sc, n, depth, nest=0):
        """Statements of a loop body (sc.serial False) or of serial code."""
        out = []
        locals_ = []
        for _ in range(n):
            k = self.r.randint(0, 9)
            writable = [a for a in sc.accesses if a.writable]
            s = sc.child(locals_)
            if k <= 1:
                ty = self.scalar_type()
                name = self.name('t')
                out.append(Decl(ty, name, self.bounded(ty, self.expr(ty, s, depth))))
                locals_.append((name, ty))
            elif k <= 5 and writable:
                out.append(self.write(self.r.choice(writable), s, depth))
            elif k == 6 and sc.atomics and (not sc.reductions or self.chance(0.5)):
                out.append(self.atomic(s, depth))
            elif k == 6 and sc.reductions:
                red = self.reduction(s, depth)
                out += red if isinstance(red, list) else [red]
            elif k == 7 and self.f['column_walks'] and self.walkable(sc) and \
                    self.chance(0.3):
                walk = self.column_walk(s, depth)
                out += walk
                locals_.append((walk[0].name, walk[0].ty))
            elif k == 7 and self.f['nested'] and nest < 2:
                out.append(self.nested_loop(s, depth, nest))
            elif k == 8 and self.f['if_chains'] and nest < 2 and self.chance(0.15):
                out.append(self.if_chain(s, depth, nest))
            elif k == 8 and self.f['nested'] and nest < 2:
                cond = Expr('int32_t', '({0}) % 3 == 0', [self.expr('int32_t', s, 2)], fixed=True)
                out.append(If(cond, self.body(s, self.r.randint(1, 3), depth, nest + 1),
                              self.body(s, self.r.randint(0, 2), depth, nest + 1)))
            elif k == 9 and sc.serial and [v for v in sc.vars if v[0].startswith('s')]:
                # A serialized loop (or serial code) writes a kernel scalar.
                n, t = self.r.choice([v for v in sc.vars if v[0].startswith('s')])
                out.append(Assign(leaf(t, n, fixed=True), self.bounded(t, self.expr(t, s, 2))))
            elif writable:
                out.append(self.write(self.r.choice(writable), s, depth))
        return out

    def if_chain(self, sc, depth, nest):
        """`if (c0) ... else { if (c1) ... else ...; after1 } ...`, 8 to 30
        deep, one short body a level and, at some levels, a statement after
        the deeper ones (as inlined functions that return early give): the
        lanes of a warp take different ways through it and meet again level
        by level (test/e2e/divergent.qd is what such a body once broke)."""
        node = self.body(sc, self.r.randint(0, 1), 1, nest + 1)
        for _ in range(self.r.randint(8, 30)):
            m = self.r.randint(2, 5)
            cond = Expr('int32_t', '({0}) %% %d == 1' % m,
                        [self.expr('int32_t', sc, 1)], fixed=True)
            after = self.body(sc, 1, 1, nest + 1) if self.chance(0.5) else []
            node = [If(cond, self.body(sc, 1, 1, nest + 1), node + after)]
        return node[0]

    @staticmethod
    def walkable(sc):
        """Read-only ndarrays of two or three dimensions and scalar
        elements, whose extents are known only when the kernel runs."""
        return [a for a in sc.accesses
                if a.array.kind == 'host' and not a.linear and not a.writable
                and not a.fixed and len(a.array.shape) >= 2
                and a.array.elem not in VEC_TYPES and a.array.elem != 'bool'
                and a not in sc.atomics]

    def column_walk(self, sc, depth):
        """`t = 0; for (k = 0 or last; ...) t = t + x(k, c...);`: a local
        summed down a column of an ndarray, forwards or backwards, whose
        address steps by a row's length (StridedAddresses.cpp on NVIDIA
        GPUs)."""
        a = self.r.choice(self.walkable(sc))
        ty = a.array.elem
        t, k = self.name('t'), self.name('k')
        cols = [self.index(n, sc, min(depth, 1)) for n in a.array.shape[1:]]
        holes = ', '.join('{%d}' % (i + 1) for i in range(len(cols)))
        if is_int(ty):
            w = wide_unsigned(ty)
            value = Expr(ty, f'{ty}({w}({{0}}) + {w}({a.ref}({k}, {holes})))',
                         [leaf(ty, t)] + cols, fixed=True)
        else:
            value = self.bounded(ty, Expr(ty, f'{{0}} + {a.ref}({k}, {holes})',
                                          [leaf(ty, t)] + cols, fixed=True))
        if self.chance(0.5):
            head = f'for (int64_t {k} = 0; {k} < {a.ref}.shape(0); ++{k})'
        else:
            head = f'for (int64_t {k} = {a.ref}.shape(0) - 1; {k} >= 0; --{k})'
        return [Decl(ty, t, leaf(ty, self.literal(ty))),
                Loop(head, [], [Assign(leaf(ty, t, fixed=True), value)])]

    def nested_loop(self, sc, depth, nest):
        v = self.name('j')
        n = self.r.randint(0, 6)
        if self.chance(0.5):
            head = f'for (int {v} = 0; {v} < {n}; ++{v})'
        else:
            head = f'for (int {v} : qd::range({n}))'
        inner = sc.child([(v, 'int32_t')])
        return Loop(head, [], self.body(inner, self.r.randint(1, 3), depth, nest + 1))

    # ---- top-level loops ---------------------------------------------------
    def affine(self, var, lo, hi, size):
        """An injective index function of var in [lo, hi) within [0, size)."""
        opts = [var]
        if hi < size:
            c = self.r.randint(1, size - hi)
            opts.append(f'({var} + {c})')
        opts.append(f'({size - 1} - {var})')
        if 2 * (hi - 1) < size:
            c = self.r.randint(0, size - 1 - 2 * (hi - 1))
            opts.append(f'(2 * {var} + {c})')
        return self.r.choice(opts)

    def parallel_loop(self, accesses, scalars, reducible):
        """A top-level parallel loop; accesses are the kernel's arrays, the
        loop writes some of those marked writable."""
        cands = [a for a in accesses if a.writable and a.array.shape]
        dims = 1
        if self.f['multidim'] and self.chance(0.3):
            dims = 2 if self.chance(0.75) else 3
        cands = [a for a in cands if len(a.shape()) >= dims]
        if not cands:
            dims = 1
            cands = [a for a in accesses if a.writable and a.array.shape]
        if not cands:
            return None
        written = self.r.sample(cands, min(len(cands), self.r.randint(1, 3)))
        limits = [min(a.shape()[d] for a in written) for d in range(dims)]
        los, his = [], []
        var_ty = 'int64_t' if dims > 1 or self.chance(0.3) else 'int32_t'
        names = [self.name('i') for _ in range(dims)]
        for d in range(dims):
            hi = self.r.randint(0, limits[d]) if self.chance(0.3) else limits[d]
            lo = self.r.randint(0, hi) if self.chance(0.2) else 0
            los.append(lo)
            his.append(hi)
        # The loop's own view of the arrays.
        inner_acc = []
        for a in accesses:
            if a in written:
                fixed = [self.affine(names[d], los[d], his[d], a.shape()[d]) for d in range(dims)]
                inner_acc.append(Access(a.array, a.ref, fixed, True, a.linear))
            elif not any(w.array is a.array for w in written):
                inner_acc.append(Access(a.array, a.ref, None, False, a.linear))
        atomics = []
        if self.f['atomics'] and self.chance(0.3):
            free = [a for a in accesses if a.writable and a.array.shape and a not in written
                    and a.array.elem in ('int32_t', 'int64_t', 'uint32_t', 'uint64_t')]
            if free:
                t = self.r.choice(free)
                atomics = [Access(t.array, t.ref, None, False, t.linear)]
                atomics[0].atomic_op = self.r.choice(['add', 'sub', 'min', 'max', 'or',
                                                      'xor', 'and'])
                inner_acc = [a for a in inner_acc if a.array is not t.array]
        reduced = {}
        for name, ty in reducible:
            if self.chance(0.4):
                reduced[name] = (ty, self.reduce_op(ty))
            elif name in self.ladder_sums:
                reduced[name] = (ty, '+=')
        vars_ = [(v, t) for v, t in scalars if v not in reduced]
        ext_scope = self.extent_scope(vars_, accesses, inner_acc)
        # What the loop writes includes what it updates atomically.
        extents, head = self.loop_head(names, var_ty, los, his, ext_scope, written + atomics,
                                       accesses)
        loop_vars = [(n, var_ty) for n in names]
        sc = Scope(vars_ + loop_vars, inner_acc, serial=False, reductions=reduced, in_loop=True,
                   atomics=atomics)
        body = self.body(sc, self.r.randint(1, 5), 3)
        # With a ladder, a sum of its values over the lanes (the shape of
        # test/e2e/divergent.qd) most of the time.
        sums = sorted(n for n, (t, op) in reduced.items() if is_int(t) and op in ('+=', '-='))
        call = self.ladder_call(sc) if sums and self.chance(0.8) else None
        if call:
            name = self.r.choice(sums)
            ty, op = reduced[name]
            body.append(Assign(leaf(ty, name, fixed=True),
                               Expr(ty, f'{ty}({call} % 1000)', [], fixed=True), op))
        config = None
        if self.f['config'] and self.chance(CONFIG_RATE):
            configs = ['qd::loop_config({.block_dim = 64});',
                       'qd::loop_config({.block_dim = 256});',
                       'qd::loop_config({.parallelize = 2});']
            # Tiles over an ndrange's last dimensions.
            if dims >= 2:
                configs += ['qd::loop_config({.block_dim = {32, 8}});',
                            'qd::loop_config({.block_dim = {4, 16}});',
                            'qd::loop_config({.block_dim = {1, 8}});']
            if dims >= 3:
                configs.append('qd::loop_config({.block_dim = {4, 4, 2}});')
            config = self.r.choice(configs)
        return Loop(head, extents, body, config)

    def extent_scope(self, vars_, accesses, inner_acc):
        """What a loop's range may read: parameters and constants, and with
        dynrange kernel scalars and arrays the loop does not write."""
        if not self.f['dynrange']:
            return Scope([(v, t) for v, t in vars_ if v.startswith('n')], [], serial=True)
        if self.f['dynrange_self']:
            acc = self.serial_view(accesses, hoist=True)
        else:
            acc = [a for a in inner_acc if a.fixed is None]
        acc = [a for a in acc if self.f['pointer_hoist'] or not a.linear]
        return Scope(vars_, acc, serial=True)

    def reduce_op(self, ty):
        if ty == 'float':
            return self.r.choice(['+=', '-=', 'qd::atomic_max', 'qd::atomic_min'])
        if ty == 'double':
            return self.r.choice(['+=', '-=', 'qd::atomic_max'])
        ops = ['+=', '-=', '|=', '&=', '^=', 'qd::atomic_max', 'qd::atomic_min']
        if not is_signed(ty):
            ops.append('*=')
        return self.r.choice(ops)

    def extent(self, hi, sc):
        """The end of a range: a constant, or a computed value in [0, hi]."""
        if self.chance(0.55) or hi == 0:
            return leaf('int32_t', str(hi))
        t = self.r.choice(['int32_t', 'int64_t', 'uint32_t'])
        inner = self.expr(t, sc, 2)
        return Expr('int32_t', f'int32_t(uint32_t({{0}}) % {hi + 1}u)', [inner], fixed=True)

    def loop_head(self, names, var_ty, los, his, ext_scope, written, accesses):
        dims = len(names)
        vt = 'int' if var_ty == 'int32_t' else 'int64_t'
        if dims == 1:
            n, lo, hi = names[0], los[0], his[0]
            end = self.extent(hi, ext_scope) if lo == 0 else leaf('int32_t', str(hi))
            form = self.r.randint(0, 3)
            # C++ evaluates a `for (;;)` condition before every iteration, a
            # top-level loop's range once: the serial reference agrees only
            # when the loop does not write what its end reads.
            if form == 0 and any(w.ref and w.ref in end.text() for w in written):
                form = 1
            shape_of = [a for a in accesses if a.ref and a.array.kind == 'host' and not a.linear
                        and a.array.shape[0] == hi and lo == 0]
            if form == 3 and shape_of and var_ty == 'int64_t':
                a = self.r.choice(shape_of)
                return [], f'for (int64_t {n} : qd::range({a.ref}.shape(0)))'
            if lo > 0:
                if form == 0:
                    return [end], f'for ({vt} {n} = {lo}; {n} < {{0}}; ++{n})'
                if vt == 'int64_t' and self.f['mixed_range'] and self.chance(0.5):
                    # Bounds of two types of one signedness: over the wider.
                    return [end], f'for ({vt} {n} : qd::range(int({lo}), {vt}({{0}})))'
                return [end], f'for ({vt} {n} : qd::range({vt}({lo}), {vt}({{0}})))'
            if form == 0:
                return [end], f'for ({vt} {n} = 0; {n} < {{0}}; {n}++)'
            return [end], f'for ({vt} {n} : qd::range({vt}({{0}})))'
        extents, parts = [], []
        for d in range(dims):
            if los[d] > 0:
                parts.append(f'{{{los[d]}, {his[d]}}}')
            else:
                extents.append(self.extent(his[d], ext_scope))
                parts.append('int64_t({%d})' % (len(extents) - 1))
        fmt_parts = [p.replace('{', '{{').replace('}', '}}') if not p.startswith('int64_t') else p
                     for p in parts]
        return extents, f'for (auto [{", ".join(names)}] : qd::ndrange({", ".join(fmt_parts)}))'

    # ---- kernels -----------------------------------------------------------
    def kernel_arrays(self):
        """The arrays a kernel uses and how it refers to them."""
        params, accesses = [], []
        fields = self.prog.fields
        for a in self.r.sample(fields, min(len(fields), self.r.randint(1, 4))):
            accesses.append(Access(a, a.name, writable=self.chance(0.8)))
        if self.f['ndarray']:
            used = set()
            for _ in range(self.r.randint(0, 2)):
                free = [h for h in self.prog.host_arrays if h.name not in used]
                h = self.r.choice(free) if free and self.chance(0.5) else self.new_host_array()
                used.add(h.name)
                p = Param(self.name('x'), 'nd', array=h)
                params.append(p)
                accesses.append(Access(h, p.name, writable=self.chance(0.8)))
        if self.f['pointers'] and self.chance(0.2):
            h = self.new_host_array(pointer=True)
            p = Param(self.name('p'), 'ptr', array=h,
                      restrict=self.f['noalias'] and self.chance(0.5))
            params.append(p)
            accesses.append(Access(h, p.name, writable=self.chance(0.6), linear=True))
        return params, accesses

    def kernel(self):
        graph = self.f['dowhile'] and self.chance(0.15)
        stream = not graph and self.f['stream'] and self.chance(0.15)
        params, accesses = self.kernel_arrays()
        scalar_params = [Param(self.name('n'), 'scalar', ty=self.scalar_type())
                         for _ in range(self.r.randint(0, 3))]
        params += scalar_params
        name = self.name('k')
        pvars = [(p.name, p.ty) for p in scalar_params]
        if stream:
            return Kernel(name, params, None, self.stream_body(accesses, pvars),
                          noalias=self.f['noalias'] and self.chance(0.3))
        ret = self.scalar_type() if self.f['scalars'] and self.chance(0.4) else None
        flag = None
        if graph:
            flag = Array(self.name('go'), 'int32_t', [], 'field', ['int32_t(0)'])
            self.prog.fields.append(flag)
        body, scalars = self.top_body(accesses, pvars, flag, scalar_params)
        ret_expr = None
        if ret:
            sc = Scope(scalars, self.serial_view(accesses), serial=True)
            # Often a top-level local itself, of its own type, as
            # reductions end (`return s;`: when it is a kernel scalar the
            # launcher copies its slot back).
            locals_ = [(n, t) for n, t in scalars if (n, t) not in pvars]
            if locals_ and self.chance(0.5):
                name, ret = self.r.choice(locals_)
                ret_expr = leaf(ret, name)
            else:
                ret_expr = self.expr(ret, sc, 3)
        noalias = self.f['noalias'] and self.chance(0.3)
        return Kernel(name, params, ret, body, ret_expr, graph, noalias)

    def serial_view(self, accesses, hoist=False):
        return [Access(a.array, a.ref, None, a.writable, a.linear) for a in accesses
                if hoist is False or self.f['pointer_hoist'] or not a.linear]

    def top_body(self, accesses, pvars, flag, scalar_params, depth=0):
        """Top-level statements (or a do_while body at depth > 0)."""
        out = []
        scalars = list(pvars)          # readable scalar values
        reducible = []                 # (name, type) of reduction scalars
        if (depth == 0 and any(isinstance(fn, LadderFunc) for fn in self.prog.funcs)
                and self.chance(0.5)):
            # A sum of the ladder's values for the loops below to reduce.
            name = self.name('r')
            out.append(Decl('int64_t', name, leaf('int64_t', int_literal('int64_t', 0))))
            reducible.append((name, 'int64_t'))
            scalars.append((name, 'int64_t'))
            self.ladder_sums.add(name)
        for _ in range(self.r.randint(1, 7)):
            k = self.r.randint(0, 11)
            if k <= 4 or not self.f['scalars'] and k <= 8:
                loop = self.parallel_loop(accesses, scalars, reducible)
                if loop:
                    out.append(loop)
            elif k <= 6 and self.f['scalars']:
                ty = self.scalar_type()
                name = self.name('s')
                if self.chance(0.5) and ty in ('int32_t', 'int64_t', 'uint32_t', 'uint64_t',
                                               'float', 'double'):
                    name = self.name('r')
                    init = int_literal(ty, self.r.randint(0, 9)) if is_int(ty) else float_literal(ty, 0.5)
                    out.append(Decl(ty, name, leaf(ty, init)))
                    reducible.append((name, ty))
                    scalars.append((name, ty))
                else:
                    sc = Scope(scalars, self.serial_view(accesses, hoist=True), serial=True)
                    out.append(Decl(ty, name, self.bounded(ty, self.expr(ty, sc, 3))))
                    scalars.append((name, ty))
            elif k == 7:
                sc = Scope(scalars, self.serial_view(accesses), serial=True)
                targets = [a for a in sc.accesses if a.writable]
                if self.f['nested'] and self.chance(0.4):
                    # A top-level if: one serial task holding loops, writes.
                    cond = Expr('int32_t', '({0}) % 3 != 0', [self.expr('int32_t', sc, 2)],
                                fixed=True)
                    out.append(If(cond, self.body(sc, self.r.randint(1, 3), 3, 1),
                                  self.body(sc, self.r.randint(0, 2), 3, 1)))
                elif targets:
                    out.append(self.write(self.r.choice(targets), sc, 3))
            elif k == 8 and self.f['config']:
                loop = self.serialized_loop(accesses, scalars)
                if loop:
                    out.append(loop)
            elif k == 9 and self.f['param_writes'] and scalar_params:
                p = self.r.choice(scalar_params)
                sc = Scope(scalars, self.serial_view(accesses), serial=True)
                out.append(Assign(leaf(p.ty, p.name, fixed=True),
                                  self.bounded(p.ty, self.expr(p.ty, sc, 2))))
            elif k == 10 and flag is not None and depth < 2:
                # Loops nest, sharing the flag: each sets it before it runs.
                # A nested loop sees the locals of the body around it only
                # with dowhile_nested_local (findings/dowhile-nested-local.qd).
                seen = scalars if depth == 0 or self.f['dowhile_nested_local'] else pvars
                body, _ = self.top_body(accesses, seen, flag, [], depth + 1)
                out.append(DoWhile(flag.name, self.name('it'), self.r.randint(1, 3), body))
            elif k == 11:
                plain = [(n, t) for n, t in scalars if n.startswith('s')]
                if plain:
                    n, t = self.r.choice(plain)
                    sc = Scope(scalars, self.serial_view(accesses), serial=True)
                    out.append(Assign(leaf(t, n, fixed=True),
                                      self.bounded(t, self.expr(t, sc, 2))))
        return out, scalars

    def serialized_loop(self, accesses, scalars):
        v = self.name('i')
        shaped = [a for a in accesses if a.array.shape]
        if not shaped:
            return None
        n = self.r.randint(0, 40)
        sc = Scope(scalars + [(v, 'int32_t')], self.serial_view(accesses), serial=True)
        body = self.body(sc, self.r.randint(1, 3), 3)
        return Loop(f'for (int {v} : qd::range({n}))', [], body,
                    'qd::loop_config({.serialize = true});')

    def stream_body(self, accesses, pvars):
        """QD_STREAM_PARALLEL blocks writing disjoint arrays."""
        writable = [a for a in accesses if a.writable]
        readonly = [a for a in accesses if not a.writable]
        groups = self.r.randint(1, 3)
        owned = [[] for _ in range(groups)]
        for a in writable:
            owned[self.r.randrange(groups)].append(a)
        # Arrays may be shared as pointers/ndarrays to the same host array
        # only once per kernel, which kernel_arrays guarantees.
        blocks = []
        for g in range(groups):
            mine = [Access(a.array, a.ref, None, True, a.linear) for a in owned[g]]
            view = mine + [Access(a.array, a.ref, None, False, a.linear) for a in readonly]
            loops = []
            for _ in range(self.r.randint(1, 3)):
                loop = self.parallel_loop(view, pvars, [])
                if loop:
                    loops.append(loop)
            if loops:
                blocks.append(Block(loops))
        return blocks

    # ---- the whole program -------------------------------------------------
    def program(self):
        for _ in range(self.r.randint(1, 4)):
            self.new_field()
        if self.f['funcs']:
            self.funcs()
        for _ in range(self.r.randint(1, 3)):
            self.prog.kernels.append(self.kernel())
        calls = [k for k in self.prog.kernels]
        calls += [self.r.choice(self.prog.kernels) for _ in range(self.r.randint(0, 3))]
        self.r.shuffle(calls)
        for k in calls:
            args = [self.literal(p.ty) for p in k.params if p.kind == 'scalar']
            self.prog.calls.append(HostCall(k.name, args))
        return self.prog


def generate(seed, features=None):
    return Gen(seed, features or dict(FEATURES)).program()
