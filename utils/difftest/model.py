"""The program model of the differential tester.

A generated program is a tree of the classes below: module-level fields,
QD_FUNCs, kernels made of statements and expressions, and a host sequence of
kernel calls. The tree prints itself as a .qd file and as a host main.cpp;
the reducer edits the tree (deletes statements, replaces expressions) and
prints it again. Every expression node prints as C++ that is defined for all
values of its operands, so any replacement of a node by a node of the same
type keeps the program free of undefined behaviour.
"""

INT_TYPES = ['int8_t', 'int16_t', 'int32_t', 'int64_t',
             'uint8_t', 'uint16_t', 'uint32_t', 'uint64_t']
FLOAT_TYPES = ['float', 'double']
BITS = {'int8_t': 8, 'int16_t': 16, 'int32_t': 32, 'int64_t': 64,
        'uint8_t': 8, 'uint16_t': 16, 'uint32_t': 32, 'uint64_t': 64}

# Vector and matrix element types: name -> (component type, rows, columns).
VEC_TYPES = {'qd::vec2': ('float', 1, 2), 'qd::vec3': ('float', 1, 3),
             'qd::dvec2': ('double', 1, 2), 'qd::ivec2': ('int32_t', 1, 2),
             'qd::ivec3': ('int32_t', 1, 3), 'qd::mat2': ('float', 2, 2),
             'qd::dmat2': ('double', 2, 2)}


def is_int(ty):
    return ty in BITS


def is_signed(ty):
    return is_int(ty) and not ty.startswith('u')


def wide_unsigned(ty):
    """The unsigned type wrapping arithmetic of ty is done in."""
    return 'uint64_t' if BITS[ty] == 64 else 'uint32_t'


def component_type(ty):
    return VEC_TYPES[ty][0] if ty in VEC_TYPES else ty


class Expr:
    """An expression: fmt is a str.format template over the kids' texts.
    fixed: the reducer leaves the node itself alone (its kids may change)."""

    def __init__(self, ty, fmt, kids=(), fixed=False):
        self.ty, self.fmt, self.kids, self.fixed = ty, fmt, list(kids), fixed

    def text(self):
        return self.fmt.format(*[k.text() for k in self.kids])


def leaf(ty, text, fixed=False):
    return Expr(ty, text.replace('{', '{{').replace('}', '}}'), (), fixed)


class Stmt:
    """Base of statements; `lists` names the attributes holding statement
    lists (the reducer deletes from them), `exprs` the expression ones."""
    lists = ()
    exprs = ()


class Raw(Stmt):
    """A statement printed as is (keep=True: the reducer never deletes it)."""

    def __init__(self, text, keep=False):
        self.raw, self.keep = text, keep

    def emit(self, ind):
        return [ind + self.raw]


class Decl(Stmt):
    exprs = ('init',)

    def __init__(self, ty, name, init):
        self.ty, self.name, self.init = ty, name, init

    def emit(self, ind):
        return [f'{ind}{self.ty} {self.name} = {self.init.text()};']


class Assign(Stmt):
    """`lhs op value;` with lhs an expression printing an lvalue."""
    exprs = ('lhs', 'value')

    def __init__(self, lhs, value, op='='):
        self.lhs, self.value, self.op = lhs, value, op

    def emit(self, ind):
        return [f'{ind}{self.lhs.text()} {self.op} {self.value.text()};']


class Call(Stmt):
    """An expression statement, such as `qd::atomic_max(s, e);`."""
    exprs = ('call',)

    def __init__(self, call):
        self.call = call

    def emit(self, ind):
        return [f'{ind}{self.call.text()};']


class If(Stmt):
    lists = ('then', 'other')
    exprs = ('cond',)

    def __init__(self, cond, then, other):
        self.cond, self.then, self.other = cond, then, other

    def emit(self, ind):
        out = [f'{ind}if ({self.cond.text()}) {{']
        out += emit_list(self.then, ind + '  ')
        if self.other:
            out.append(f'{ind}}} else {{')
            out += emit_list(self.other, ind + '  ')
        out.append(ind + '}')
        return out


class Loop(Stmt):
    """A for loop: `head` is its text up to the body, with `{0}`, `{1}`...
    standing for the extent expressions; config is a qd::loop_config line."""
    lists = ('body',)
    exprs = ('extents',)

    def __init__(self, head, extents, body, config=None):
        self.head, self.extents, self.body, self.config = head, extents, body, config

    def emit(self, ind):
        out = [f'{ind}{self.config}'] if self.config else []
        head = self.head.format(*[e.text() for e in self.extents])
        out.append(f'{ind}{head} {{')
        out += emit_list(self.body, ind + '  ')
        out.append(ind + '}')
        return out


class DoWhile(Stmt):
    """`while (qd::graph::do_while(flag))` running its body `runs` times: the
    flag and the counter are set by lines the reducer cannot remove."""
    lists = ('body',)

    def __init__(self, flag, counter, runs, body):
        self.flag, self.counter, self.runs, self.body = flag, counter, runs, body

    def emit(self, ind):
        c, f = self.counter, self.flag
        out = [f'{ind}int32_t {c} = 0;', f'{ind}{f}[0] = 1;',
               f'{ind}while (qd::graph::do_while({f})) {{']
        out += emit_list(self.body, ind + '  ')
        out += [f'{ind}  {c} += 1;', f'{ind}  {f}[0] = {c} < {self.runs} ? 1 : 0;',
                ind + '}']
        return out


class Block(Stmt):
    """A QD_STREAM_PARALLEL block."""
    lists = ('body',)

    def __init__(self, body):
        self.body = body

    def emit(self, ind):
        return ([f'{ind}QD_STREAM_PARALLEL {{'] + emit_list(self.body, ind + '  ') +
                [ind + '}'])


def emit_list(stmts, ind):
    out = []
    for s in stmts:
        out += s.emit(ind)
    return out


class Array:
    """Storage: a field (module level), or a host Ndarray that kernels take
    as an ndarray or raw pointer parameter."""

    def __init__(self, name, elem, shape, kind, init):
        self.name, self.elem, self.shape, self.kind, self.init = name, elem, shape, kind, init

    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n


class Param:
    """A kernel parameter: kind 'scalar' (ty), 'nd' or 'ptr' (array)."""

    def __init__(self, name, kind, ty=None, array=None, restrict=False):
        self.name, self.kind, self.ty, self.array = name, kind, ty, array
        self.restrict = restrict

    def decl(self):
        if self.kind == 'scalar':
            return f'{self.ty} {self.name}'
        if self.kind == 'nd':
            return f'qd::ndarray<{self.array.elem}, {len(self.array.shape)}> {self.name}'
        return f'{self.array.elem} *{"__restrict__ " if self.restrict else ""}{self.name}'


class Func:
    """A QD_FUNC: `ret name(params) { return body; }`."""
    exprs = ('body',)
    lists = ()

    def __init__(self, name, ret, params, body):
        self.name, self.ret, self.params, self.body = name, ret, params, body

    def emit(self):
        ps = ', '.join(f'{t} {n}' for n, t in self.params)
        return [f'QD_FUNC {self.ret} {self.name}({ps}) {{',
                f'  return {self.body.text()};', '}']


class LadderFunc:
    """One level of a chain of QD_FUNCs that return early:
    `int32_t name(int32_t i) { if (i % m == c) return ...; int32_t x =
    next(i); return x + ...; }`, or the last level, `return i % 9;`. The
    lanes of a warp that call the first level leave at different levels
    and meet again level by level (as inlined helpers do); only the first
    level is called from expressions."""
    exprs = ()
    lists = ()
    ret, params = 'int32_t', [('i', 'int32_t')]

    def __init__(self, name, nxt=None, m=2, c=1, a=1, b=0, callable_=False):
        self.name, self.nxt = name, nxt
        self.m, self.c, self.a, self.b = m, c, a, b
        self.callable = callable_

    def emit(self):
        if self.nxt is None:
            return [f'QD_FUNC int32_t {self.name}(int32_t i) {{ return i % 9; }}']
        return [f'QD_FUNC int32_t {self.name}(int32_t i) {{',
                f'  if (i % {self.m} == {self.c})',
                f'    return (i % 1000) * {self.a} + {self.b};',
                f'  int32_t x = {self.nxt}(i);',
                '  return x + (i % 7 + x % 11) % 5;', '}']


class Kernel:
    lists = ('body',)
    exprs = ('ret_expr',)

    def __init__(self, name, params, ret, body, ret_expr=None, graph=False,
                 noalias=False):
        self.name, self.params, self.ret, self.body = name, params, ret, body
        self.ret_expr, self.graph, self.noalias = ret_expr, graph, noalias

    def emit(self):
        ps = ', '.join(p.decl() for p in self.params)
        graph = 'QD_GRAPH ' if self.graph else ''
        noalias = 'QD_NOALIAS ' if self.noalias else ''
        out = [f'QD_KERNEL {graph}{noalias}{self.ret or "void"} {self.name}({ps}) {{']
        out += emit_list(self.body, '  ')
        if self.ret:
            out.append(f'  return {self.ret_expr.text()};')
        out.append('}')
        return out


class HostCall:
    """One call of a kernel from main(), with literal scalar arguments."""

    def __init__(self, kernel, args):
        self.kernel, self.args = kernel, args


class Program:
    def __init__(self, seed, features):
        self.seed, self.features = seed, features
        self.fields, self.host_arrays, self.funcs, self.kernels = [], [], [], []
        self.calls = []

    # ---- printing ----------------------------------------------------------
    def qd_text(self):
        out = [f'// Generated by the qdc differential tester, seed {self.seed}.']
        for f in self.fields:
            dims = ''.join(f', {s}' for s in f.shape)
            out.append(f'qd::field<{f.elem}{dims}> {f.name};')
        for fn in self.funcs:
            out += fn.emit()
        for k in self.kernels:
            out.append('')
            out += k.emit()
        return '\n'.join(out) + '\n'

    def main_text(self):
        out = [MAIN_PRELUDE]
        out.append('int main() {')
        out.append('  qd::init();')
        for a in self.fields:
            out.append(f'  prog::{a.name}.copy_from({init_vector(a)});')
        for a in self.host_arrays:
            shape = ', '.join(str(s) for s in a.shape)
            out.append(f'  qd::Ndarray<{a.elem}, {len(a.shape)}> {a.name}({{{shape}}});')
            out.append(f'  {a.name}.copy_from({init_vector(a)});')
        kernels = {k.name: k for k in self.kernels}
        for n, call in enumerate(self.calls):
            k = kernels.get(call.kernel)
            if k is None:
                continue
            args, scalars = [], iter(call.args)
            for p in k.params:
                if p.kind == 'scalar':
                    args.append(next(scalars))
                elif p.kind == 'nd':
                    args.append(p.array.name)
                else:
                    args.append(f'static_cast<{p.array.elem} *>({p.array.name}.data())')
            text = f'prog::{k.name}({", ".join(args)})'
            if k.ret:
                out.append(f'  show_value("call{n}.{k.name}", {text});')
            else:
                out.append(f'  {text};')
        out.append('  qd::sync();')
        for a in self.fields:
            out.append(f'  show("{a.name}", prog::{a.name}.to_vector());')
        for a in self.host_arrays:
            out.append(f'  show("{a.name}", {a.name}.to_vector());')
        out.append('  return 0;')
        out.append('}')
        return '\n'.join(out) + '\n'


def init_vector(a):
    vals = ', '.join(a.init)
    return f'std::vector<{a.elem}>{{{vals}}}'


MAIN_PRELUDE = r'''// Generated by the qdc differential tester: calls the kernels of prog.qd
// and prints every output. Built against qdc's header, or against the serial
// reference (QD_SERIAL_REFERENCE) with prog.qd compiled as plain C++.
#ifdef QD_SERIAL_REFERENCE
#include "serial_qd.h"
namespace prog {
#include "prog.qd"
}
#else
#include "prog.qd.h"
#endif
#include <cstdio>
#include <vector>

static void pv(bool v) { std::printf(" %d", int(v)); }
static void pv(int8_t v) { std::printf(" %d", int(v)); }
static void pv(int16_t v) { std::printf(" %d", int(v)); }
static void pv(int32_t v) { std::printf(" %d", int(v)); }
static void pv(int64_t v) { std::printf(" %lld", (long long)v); }
static void pv(uint8_t v) { std::printf(" %u", unsigned(v)); }
static void pv(uint16_t v) { std::printf(" %u", unsigned(v)); }
static void pv(uint32_t v) { std::printf(" %u", unsigned(v)); }
static void pv(uint64_t v) { std::printf(" %llu", (unsigned long long)v); }
static void pv(float v) { std::printf(" %.9g", double(v)); }
static void pv(double v) { std::printf(" %.17g", v); }
template <typename T, int N> static void pv(const qd::vec<T, N> &v) {
  for (int k = 0; k < N; ++k)
    pv(T(v[k]));
}
template <typename T, int R, int C> static void pv(const qd::mat<T, R, C> &m) {
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      pv(T(m(i, j)));
}
template <typename T> static const char *kind(T) { return "I"; }
static const char *kind(float) { return "F"; }
static const char *kind(double) { return "F"; }
template <typename T, int N> static const char *kind(const qd::vec<T, N> &) { return kind(T()); }
template <typename T, int R, int C> static const char *kind(const qd::mat<T, R, C> &) {
  return kind(T());
}
template <typename T> static void show(const char *name, const std::vector<T> &v) {
  std::printf("%s %s:", kind(T()), name);
  for (const T &x : v)
    pv(x);
  std::printf("\n");
}
template <typename T> static void show_value(const char *name, const T &v) {
  std::printf("%s %s:", kind(T()), name);
  pv(v);
  std::printf("\n");
}
'''
