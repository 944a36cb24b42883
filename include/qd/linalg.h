//===- qd/linalg.h - Small vectors and matrices -----------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qd::vec<T, N> and qd::mat<T, R, C> (DESIGN section 1.2), the
// same types in kernels, in fields and ndarrays, and on the host (included
// by <qd/qd.h> and <qd/runtime.h>). Trivially copyable aggregates of T with
// every loop over a constant extent, so that after inlining a vec3
// operation is three scalar operations in registers. Component-wise math
// (`qd::sqrt(v)`) is in the kernel vocabulary (qd/detail/kernel.h).
//
//===----------------------------------------------------------------------===//

#ifndef QD_LINALG_H
#define QD_LINALG_H

#if defined(__CUDA__) || defined(__HIP__)
#define QD_LINALG_FN __attribute__((host, device))
#else
#define QD_LINALG_FN
#endif

namespace qd {

namespace detail {
template <bool B> struct if_rows_ {};
template <> struct if_rows_<true> { using type = int; };
/// 1 for the integer types, 2 for float and double, 0 otherwise (no
/// <type_traits> here: this header is device code too).
template <typename T> struct scalar_kind_ {
  static constexpr int value = 0;
};
#define QD_SCALAR_KIND_(T, k)                                                  \
  template <> struct scalar_kind_<T> {                                         \
    static constexpr int value = k;                                            \
  };
QD_SCALAR_KIND_(signed char, 1)
QD_SCALAR_KIND_(short, 1)
QD_SCALAR_KIND_(int, 1)
QD_SCALAR_KIND_(long, 1)
QD_SCALAR_KIND_(long long, 1)
QD_SCALAR_KIND_(unsigned char, 1)
QD_SCALAR_KIND_(unsigned short, 1)
QD_SCALAR_KIND_(unsigned, 1)
QD_SCALAR_KIND_(unsigned long, 1)
QD_SCALAR_KIND_(unsigned long long, 1)
QD_SCALAR_KIND_(float, 2)
QD_SCALAR_KIND_(double, 2)
#undef QD_SCALAR_KIND_
template <typename A, typename B> struct is_same_ {
  static constexpr bool value = false;
};
template <typename A> struct is_same_<A, A> {
  static constexpr bool value = true;
};
/// A scalar U of another type that converts to a component T without
/// losing its kind: `v * 2` on a float vector. A float scalar with an
/// integer vector (`iv * 0.5`) is refused rather than truncated.
template <typename T, typename U>
using if_scalar_for_ = typename if_rows_<
    !is_same_<T, U>::value && scalar_kind_<U>::value != 0 &&
    scalar_kind_<T>::value != 0 &&
    !(scalar_kind_<T>::value == 1 && scalar_kind_<U>::value == 2)>::type;
/// Any scalar type U (an integer, float or double).
template <typename U>
using if_scalar_ = typename if_rows_<scalar_kind_<U>::value != 0>::type;
template <typename T> QD_LINALG_FN inline T linalg_sqrt_(T x) {
  if constexpr (sizeof(T) <= 4)
    return T(__builtin_sqrtf(float(x)));
  else
    return T(__builtin_sqrt(double(x)));
}
} // namespace detail

/// A vector of N values of T: `qd::vec3{x, y, z}`; `v[i]`, and for
/// N <= 4 the members x, y, z, w.
template <typename T, int N> struct vec {
  static_assert(N >= 1, "a vector has at least one component");
  T data[N];
  QD_LINALG_FN constexpr T &operator[](int i) { return data[i]; }
  QD_LINALG_FN constexpr const T &operator[](int i) const { return data[i]; }
  QD_LINALG_FN static constexpr vec zeros() { return vec{}; }
};

// Named components. A const vector's component is picked by value, by
// comparison, so that reading one at a run-time index stays in registers;
// a mutable vector's is a reference, which takes the vector's address (in
// local memory on GPUs when the index is not a constant).
#define QD_VEC_MEMBERS_(pick)                                                  \
  QD_LINALG_FN constexpr T &operator[](int i) { return pick; }                 \
  QD_LINALG_FN constexpr T operator[](int i) const { return pick; }            \
  QD_LINALG_FN static constexpr vec zeros() { return vec{}; }
template <typename T> struct vec<T, 1> {
  T x;
  QD_VEC_MEMBERS_(((void)i, x))
};
template <typename T> struct vec<T, 2> {
  T x, y;
  QD_VEC_MEMBERS_(i == 0 ? x : y)
};
template <typename T> struct vec<T, 3> {
  T x, y, z;
  QD_VEC_MEMBERS_(i == 0 ? x : (i == 1 ? y : z))
};
template <typename T> struct vec<T, 4> {
  T x, y, z, w;
  QD_VEC_MEMBERS_(i == 0 ? x : (i == 1 ? y : (i == 2 ? z : w)))
};
#undef QD_VEC_MEMBERS_

/// R rows of C values: `qd::mat2{{a, b}, {c, d}}` has row 0 = (a, b);
/// `m(i, j)`, and `m[i]` is row i.
template <typename T, int R, int C> struct mat {
  static_assert(R >= 1 && C >= 1, "a matrix has at least one row and column");
  vec<T, C> rows[R];

  mat() = default;
  // From rows, one constructor per row count (C++17: no `requires`).
  template <int R_ = R, typename detail::if_rows_<R_ == 1>::type = 0>
  QD_LINALG_FN constexpr mat(vec<T, C> r0) : rows{r0} {}
  template <int R_ = R, typename detail::if_rows_<R_ == 2>::type = 0>
  QD_LINALG_FN constexpr mat(vec<T, C> r0, vec<T, C> r1) : rows{r0, r1} {}
  template <int R_ = R, typename detail::if_rows_<R_ == 3>::type = 0>
  QD_LINALG_FN constexpr mat(vec<T, C> r0, vec<T, C> r1, vec<T, C> r2)
      : rows{r0, r1, r2} {}
  template <int R_ = R, typename detail::if_rows_<R_ == 4>::type = 0>
  QD_LINALG_FN constexpr mat(vec<T, C> r0, vec<T, C> r1, vec<T, C> r2,
                             vec<T, C> r3)
      : rows{r0, r1, r2, r3} {}

  QD_LINALG_FN constexpr vec<T, C> &operator[](int i) { return rows[i]; }
  QD_LINALG_FN constexpr const vec<T, C> &operator[](int i) const {
    return rows[i];
  }
  QD_LINALG_FN constexpr T &operator()(int i, int j) { return rows[i][j]; }
  QD_LINALG_FN constexpr T operator()(int i, int j) const { return rows[i][j]; }

  QD_LINALG_FN static constexpr mat zeros() {
    mat m;
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j)
        m(i, j) = T(0);
    return m;
  }
  QD_LINALG_FN static constexpr mat identity() {
    mat m = zeros();
    for (int i = 0; i < R && i < C; ++i)
      m(i, i) = T(1);
    return m;
  }
};

// Component-wise arithmetic between equal shapes and with scalars.
#define QD_VEC_OP_(op)                                                         \
  template <typename T, int N>                                                 \
  QD_LINALG_FN constexpr vec<T, N> operator op(const vec<T, N> &a,             \
                                               const vec<T, N> &b) {           \
    vec<T, N> r;                                                               \
    for (int i = 0; i < N; ++i)                                                \
      r[i] = a[i] op b[i];                                                     \
    return r;                                                                  \
  }                                                                            \
  template <typename T, int N>                                                 \
  QD_LINALG_FN constexpr vec<T, N> operator op(const vec<T, N> &a, T s) {      \
    vec<T, N> r;                                                               \
    for (int i = 0; i < N; ++i)                                                \
      r[i] = a[i] op s;                                                        \
    return r;                                                                  \
  }                                                                            \
  template <typename T, int N>                                                 \
  QD_LINALG_FN constexpr vec<T, N> operator op(T s, const vec<T, N> &a) {      \
    vec<T, N> r;                                                               \
    for (int i = 0; i < N; ++i)                                                \
      r[i] = s op a[i];                                                        \
    return r;                                                                  \
  }                                                                            \
  template <typename T, int N, typename U,                                     \
            detail::if_scalar_for_<T, U> = 0>                                  \
  QD_LINALG_FN constexpr vec<T, N> operator op(const vec<T, N> &a, U s) {      \
    return a op T(s);                                                          \
  }                                                                            \
  template <typename T, int N, typename U,                                     \
            detail::if_scalar_for_<T, U> = 0>                                  \
  QD_LINALG_FN constexpr vec<T, N> operator op(U s, const vec<T, N> &a) {      \
    return T(s) op a;                                                          \
  }                                                                            \
  template <typename T, int N, typename U>                                     \
  QD_LINALG_FN constexpr vec<T, N> &operator op##=(vec<T, N> &a, const U &b) { \
    a = a op b;                                                                \
    return a;                                                                  \
  }
QD_VEC_OP_(+)
QD_VEC_OP_(-)
QD_VEC_OP_(*)
QD_VEC_OP_(/)
#undef QD_VEC_OP_

template <typename T, int N>
QD_LINALG_FN constexpr vec<T, N> operator-(const vec<T, N> &a) {
  vec<T, N> r;
  for (int i = 0; i < N; ++i)
    r[i] = -a[i];
  return r;
}
template <typename T, int N>
QD_LINALG_FN constexpr bool operator==(const vec<T, N> &a, const vec<T, N> &b) {
  for (int i = 0; i < N; ++i)
    if (!(a[i] == b[i]))
      return false;
  return true;
}
template <typename T, int N>
QD_LINALG_FN constexpr bool operator!=(const vec<T, N> &a, const vec<T, N> &b) {
  return !(a == b);
}

// Matrices: + - and / component-wise, * with a scalar, and the products.
#define QD_MAT_OP_(op)                                                         \
  template <typename T, int R, int C>                                          \
  QD_LINALG_FN constexpr mat<T, R, C> operator op(const mat<T, R, C> &a,       \
                                                  const mat<T, R, C> &b) {     \
    mat<T, R, C> r;                                                            \
    for (int i = 0; i < R; ++i)                                                \
      r[i] = a[i] op b[i];                                                     \
    return r;                                                                  \
  }
QD_MAT_OP_(+)
QD_MAT_OP_(-)
QD_MAT_OP_(/)
#undef QD_MAT_OP_
#define QD_MAT_SCALAR_OP_(op)                                                  \
  template <typename T, int R, int C>                                          \
  QD_LINALG_FN constexpr mat<T, R, C> operator op(const mat<T, R, C> &a,       \
                                                  T s) {                       \
    mat<T, R, C> r;                                                            \
    for (int i = 0; i < R; ++i)                                                \
      r[i] = a[i] op s;                                                        \
    return r;                                                                  \
  }                                                                            \
  template <typename T, int R, int C, typename U,                              \
            detail::if_scalar_for_<T, U> = 0>                                  \
  QD_LINALG_FN constexpr mat<T, R, C> operator op(const mat<T, R, C> &a,       \
                                                  U s) {                       \
    return a op T(s);                                                          \
  }
QD_MAT_SCALAR_OP_(+)
QD_MAT_SCALAR_OP_(-)
QD_MAT_SCALAR_OP_(*)
QD_MAT_SCALAR_OP_(/)
#undef QD_MAT_SCALAR_OP_
template <typename T, int R, int C>
QD_LINALG_FN constexpr mat<T, R, C> operator*(T s, const mat<T, R, C> &a) {
  return a * s;
}
template <typename T, int R, int C, typename U,
          detail::if_scalar_for_<T, U> = 0>
QD_LINALG_FN constexpr mat<T, R, C> operator*(U s, const mat<T, R, C> &a) {
  return a * T(s);
}
template <typename T, int R, int C>
QD_LINALG_FN constexpr mat<T, R, C> operator-(const mat<T, R, C> &a) {
  mat<T, R, C> r;
  for (int i = 0; i < R; ++i)
    r[i] = -a[i];
  return r;
}
template <typename T, int R, int K, int C>
QD_LINALG_FN constexpr mat<T, R, C> operator*(const mat<T, R, K> &a,
                                              const mat<T, K, C> &b) {
  mat<T, R, C> r;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      T s = T(0);
      for (int k = 0; k < K; ++k)
        s += a(i, k) * b(k, j);
      r(i, j) = s;
    }
  return r;
}
template <typename T, int R, int C>
QD_LINALG_FN constexpr vec<T, R> operator*(const mat<T, R, C> &a,
                                           const vec<T, C> &v) {
  vec<T, R> r;
  for (int i = 0; i < R; ++i) {
    T s = T(0);
    for (int k = 0; k < C; ++k)
      s += a(i, k) * v[k];
    r[i] = s;
  }
  return r;
}
template <typename T, int R, int C, typename U>
QD_LINALG_FN constexpr mat<T, R, C> &operator+=(mat<T, R, C> &a, const U &b) {
  return a = a + b;
}
template <typename T, int R, int C, typename U>
QD_LINALG_FN constexpr mat<T, R, C> &operator-=(mat<T, R, C> &a, const U &b) {
  return a = a - b;
}
/// Component-wise, as mat / mat and mat / s.
template <typename T, int R, int C, typename U>
QD_LINALG_FN constexpr mat<T, R, C> &operator/=(mat<T, R, C> &a, const U &b) {
  a = a / b;
  return a;
}
template <typename T, int R, int C, typename U>
QD_LINALG_FN constexpr mat<T, R, C> &operator*=(mat<T, R, C> &a, const U &b) {
  return a = a * b;
}
template <typename T, int R, int C>
QD_LINALG_FN constexpr bool operator==(const mat<T, R, C> &a,
                                       const mat<T, R, C> &b) {
  for (int i = 0; i < R; ++i)
    if (a[i] != b[i])
      return false;
  return true;
}
template <typename T, int R, int C>
QD_LINALG_FN constexpr bool operator!=(const mat<T, R, C> &a,
                                       const mat<T, R, C> &b) {
  return !(a == b);
}

// Functions.
template <typename T, int N>
QD_LINALG_FN constexpr T dot(const vec<T, N> &a, const vec<T, N> &b) {
  T s = T(0);
  for (int i = 0; i < N; ++i)
    s += a[i] * b[i];
  return s;
}
template <typename T>
QD_LINALG_FN constexpr vec<T, 3> cross(const vec<T, 3> &a, const vec<T, 3> &b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
/// The z component of the 3-D cross product of (a, 0) and (b, 0).
template <typename T>
QD_LINALG_FN constexpr T cross(const vec<T, 2> &a, const vec<T, 2> &b) {
  return a.x * b.y - a.y * b.x;
}
template <typename T, int N>
QD_LINALG_FN constexpr T norm_sqr(const vec<T, N> &a) {
  return dot(a, a);
}
template <typename T, int N> QD_LINALG_FN T norm(const vec<T, N> &a) {
  return detail::linalg_sqrt_(norm_sqr(a));
}
template <typename T, int N>
QD_LINALG_FN vec<T, N> normalized(const vec<T, N> &a) {
  return a / norm(a);
}
template <typename T, int R, int C>
QD_LINALG_FN constexpr mat<T, R, C> outer(const vec<T, R> &a,
                                          const vec<T, C> &b) {
  mat<T, R, C> m;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      m(i, j) = a[i] * b[j];
  return m;
}
template <typename T, int R, int C>
QD_LINALG_FN constexpr mat<T, C, R> transpose(const mat<T, R, C> &a) {
  mat<T, C, R> m;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      m(j, i) = a(i, j);
  return m;
}
template <typename T, int N>
QD_LINALG_FN constexpr T trace(const mat<T, N, N> &a) {
  T s = T(0);
  for (int i = 0; i < N; ++i)
    s += a(i, i);
  return s;
}

namespace detail {
/// The determinant of the 3x3 minor of a 4x4 matrix without row r and
/// column c.
template <typename T>
QD_LINALG_FN constexpr T minor3_(const mat<T, 4, 4> &a, int r, int c) {
  mat<T, 3, 3> m;
  for (int i = 0, mi = 0; i < 4; ++i) {
    if (i == r)
      continue;
    for (int j = 0, mj = 0; j < 4; ++j) {
      if (j == c)
        continue;
      m(mi, mj) = a(i, j);
      ++mj;
    }
    ++mi;
  }
  return m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) -
         m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0)) +
         m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
}
} // namespace detail

/// Up to 4x4.
template <typename T, int N>
QD_LINALG_FN constexpr T determinant(const mat<T, N, N> &a) {
  static_assert(N <= 4, "determinant is defined up to 4x4");
  if constexpr (N == 1)
    return a(0, 0);
  else if constexpr (N == 2)
    return a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
  else if constexpr (N == 3)
    return a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) -
           a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
           a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
  else
    return a(0, 0) * detail::minor3_(a, 0, 0) -
           a(0, 1) * detail::minor3_(a, 0, 1) +
           a(0, 2) * detail::minor3_(a, 0, 2) -
           a(0, 3) * detail::minor3_(a, 0, 3);
}

/// Up to 4x4, by the adjugate; a singular matrix gives infinities or NaNs
/// (no check, as in GLM).
template <typename T, int N>
QD_LINALG_FN constexpr mat<T, N, N> inverse(const mat<T, N, N> &a) {
  static_assert(N <= 4, "inverse is defined up to 4x4");
  mat<T, N, N> r;
  T inv = T(1) / determinant(a);
  if constexpr (N == 1) {
    r(0, 0) = inv;
  } else if constexpr (N == 2) {
    r(0, 0) = a(1, 1) * inv;
    r(0, 1) = -a(0, 1) * inv;
    r(1, 0) = -a(1, 0) * inv;
    r(1, 1) = a(0, 0) * inv;
  } else if constexpr (N == 3) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        // The cofactor of (j, i), by cyclic indices.
        int r1 = (j + 1) % 3, r2 = (j + 2) % 3;
        int c1 = (i + 1) % 3, c2 = (i + 2) % 3;
        r(i, j) = (a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1)) * inv;
      }
  } else {
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        T m = detail::minor3_(a, j, i);
        r(i, j) = ((i + j) % 2 ? -m : m) * inv;
      }
  }
  return r;
}

// Decompositions of 2x2 and 3x3 matrices (Quadrants' sym_eig, svd,
// polar_decompose), by cyclic Jacobi rotations: a few sweeps, each exact to
// rounding, so the results are accurate to about epsilon times the matrix's
// norm however close its eigen- or singular values are.

/// w (ascending) and Q (orthonormal eigenvectors as columns) of a
/// symmetric A: A = Q diag(w) Q^T.
template <typename T, int N> struct sym_eig_result {
  vec<T, N> w;
  mat<T, N, N> Q;
};
/// U, S (diagonal, descending) and V of A = U S V^T, U and V rotations
/// (determinant 1): the last singular value is negative when det A < 0.
template <typename T, int N> struct svd_result { mat<T, N, N> U, S, V; };
/// R (a rotation) and S (symmetric) of A = R S.
template <typename T, int N> struct polar_result { mat<T, N, N> R, S; };

namespace detail {
template <typename T> QD_LINALG_FN inline T linalg_abs_(T x) {
  return x < T(0) ? -x : x;
}
/// The rotation (c, s) that zeroes the off-diagonal entry of the symmetric
/// 2x2 [[app, apq], [apq, aqq]] (Golub and Van Loan, 8.4.2).
template <typename T>
QD_LINALG_FN void jacobi_rotation_(T app, T apq, T aqq, T &c, T &s) {
  if (apq == T(0)) {
    c = T(1);
    s = T(0);
    return;
  }
  T tau = (aqq - app) / (T(2) * apq);
  T t = (tau >= T(0) ? T(1) : T(-1)) /
        (linalg_abs_(tau) + linalg_sqrt_(T(1) + tau * tau));
  c = T(1) / linalg_sqrt_(T(1) + t * t);
  s = t * c;
}
} // namespace detail

template <typename T, int N>
QD_LINALG_FN sym_eig_result<T, N> sym_eig(const mat<T, N, N> &A) {
  static_assert(N == 2 || N == 3, "sym_eig takes 2x2 and 3x3 matrices");
  mat<T, N, N> a = A, q = mat<T, N, N>::identity();
  for (int sweep = 0; sweep < 12; ++sweep) {
    T off = T(0);
    for (int p = 0; p < N; ++p)
      for (int r = p + 1; r < N; ++r)
        off += a(p, r) * a(p, r);
    if (off == T(0))
      break;
    for (int p = 0; p < N - 1; ++p)
      for (int r = p + 1; r < N; ++r) {
        T c, s;
        detail::jacobi_rotation_(a(p, p), a(p, r), a(r, r), c, s);
        // a = J^T a J, q = q J, J the rotation in the (p, r) plane.
        for (int k = 0; k < N; ++k) {
          T akp = a(k, p), akr = a(k, r);
          a(k, p) = c * akp - s * akr;
          a(k, r) = s * akp + c * akr;
        }
        for (int k = 0; k < N; ++k) {
          T apk = a(p, k), ark = a(r, k);
          a(p, k) = c * apk - s * ark;
          a(r, k) = s * apk + c * ark;
        }
        for (int k = 0; k < N; ++k) {
          T qkp = q(k, p), qkr = q(k, r);
          q(k, p) = c * qkp - s * qkr;
          q(k, r) = s * qkp + c * qkr;
        }
      }
  }
  sym_eig_result<T, N> out;
  for (int i = 0; i < N; ++i)
    out.w[i] = a(i, i);
  // Ascending, with the columns.
  for (int i = 0; i < N; ++i)
    for (int j = i + 1; j < N; ++j)
      if (out.w[j] < out.w[i]) {
        T t = out.w[i];
        out.w[i] = out.w[j];
        out.w[j] = t;
        for (int k = 0; k < N; ++k) {
          T u = q(k, i);
          q(k, i) = q(k, j);
          q(k, j) = u;
        }
      }
  out.Q = q;
  return out;
}

/// One-sided Jacobi: rotations of the columns of A V until they are
/// orthogonal; their norms are the singular values.
template <typename T, int N>
QD_LINALG_FN svd_result<T, N> svd(const mat<T, N, N> &A) {
  static_assert(N == 2 || N == 3, "svd takes 2x2 and 3x3 matrices");
  mat<T, N, N> u = A, v = mat<T, N, N>::identity();
  for (int sweep = 0; sweep < 12; ++sweep) {
    bool rotated = false;
    for (int p = 0; p < N - 1; ++p)
      for (int r = p + 1; r < N; ++r) {
        T alpha = T(0), beta = T(0), gamma = T(0);
        for (int k = 0; k < N; ++k) {
          alpha += u(k, p) * u(k, p);
          beta += u(k, r) * u(k, r);
          gamma += u(k, p) * u(k, r);
        }
        if (detail::linalg_abs_(gamma) <=
            T(1e-2) * T(sizeof(T) == 4 ? 1e-7 : 1e-16) *
                detail::linalg_sqrt_(alpha * beta))
          continue;
        rotated = true;
        T c, s;
        detail::jacobi_rotation_(alpha, gamma, beta, c, s);
        for (int k = 0; k < N; ++k) {
          T ukp = u(k, p), ukr = u(k, r);
          u(k, p) = c * ukp - s * ukr;
          u(k, r) = s * ukp + c * ukr;
          T vkp = v(k, p), vkr = v(k, r);
          v(k, p) = c * vkp - s * vkr;
          v(k, r) = s * vkp + c * vkr;
        }
      }
    if (!rotated)
      break;
  }
  vec<T, N> sigma;
  for (int i = 0; i < N; ++i) {
    T n2 = T(0);
    for (int k = 0; k < N; ++k)
      n2 += u(k, i) * u(k, i);
    sigma[i] = detail::linalg_sqrt_(n2);
  }
  // Descending, columns of u and v with them.
  for (int i = 0; i < N; ++i)
    for (int j = i + 1; j < N; ++j)
      if (sigma[i] < sigma[j]) {
        T t = sigma[i];
        sigma[i] = sigma[j];
        sigma[j] = t;
        for (int k = 0; k < N; ++k) {
          T a = u(k, i), b = v(k, i);
          u(k, i) = u(k, j);
          v(k, i) = v(k, j);
          u(k, j) = a;
          v(k, j) = b;
        }
      }
  // u's columns divided by sigma; a zero singular value's column completes
  // an orthonormal basis (Gram-Schmidt against the others, from the unit
  // vector least aligned with them).
  for (int i = 0; i < N; ++i) {
    if (sigma[i] > T(0)) {
      for (int k = 0; k < N; ++k)
        u(k, i) /= sigma[i];
      continue;
    }
    for (int e = 0; e < N; ++e) {
      vec<T, N> w = vec<T, N>::zeros();
      w[e] = T(1);
      for (int j = 0; j < N; ++j) {
        if (j == i || (j > i && sigma[j] <= T(0)))
          continue;
        T d = T(0);
        for (int k = 0; k < N; ++k)
          d += u(k, j) * w[k];
        for (int k = 0; k < N; ++k)
          w[k] -= d * u(k, j);
      }
      T n = norm(w);
      if (n > T(0.5)) {
        for (int k = 0; k < N; ++k)
          u(k, i) = w[k] / n;
        break;
      }
    }
  }
  // Rotations: a reflection in u or v moves into the last singular value.
  if (determinant(u) < T(0)) {
    for (int k = 0; k < N; ++k)
      u(k, N - 1) = -u(k, N - 1);
    sigma[N - 1] = -sigma[N - 1];
  }
  if (determinant(v) < T(0)) {
    for (int k = 0; k < N; ++k)
      v(k, N - 1) = -v(k, N - 1);
    sigma[N - 1] = -sigma[N - 1];
  }
  svd_result<T, N> out;
  out.U = u;
  out.V = v;
  out.S = mat<T, N, N>::zeros();
  for (int i = 0; i < N; ++i)
    out.S(i, i) = sigma[i];
  return out;
}

template <typename T, int N>
QD_LINALG_FN polar_result<T, N> polar_decompose(const mat<T, N, N> &A) {
  svd_result<T, N> d = svd(A);
  polar_result<T, N> out;
  out.R = d.U * transpose(d.V);
  out.S = d.V * d.S * transpose(d.V);
  return out;
}

using vec2 = vec<float, 2>;
using vec3 = vec<float, 3>;
using vec4 = vec<float, 4>;
using dvec2 = vec<double, 2>;
using dvec3 = vec<double, 3>;
using dvec4 = vec<double, 4>;
using ivec2 = vec<int, 2>;
using ivec3 = vec<int, 3>;
using ivec4 = vec<int, 4>;
using uvec2 = vec<unsigned, 2>;
using uvec3 = vec<unsigned, 3>;
using uvec4 = vec<unsigned, 4>;
using mat2 = mat<float, 2, 2>;
using mat3 = mat<float, 3, 3>;
using mat4 = mat<float, 4, 4>;
using dmat2 = mat<double, 2, 2>;
using dmat3 = mat<double, 3, 3>;
using dmat4 = mat<double, 4, 4>;

// Component-wise min and max (`qd::min(a, b)`, also with a scalar), and
// reductions over a vector's components, as Quadrants' v.min(), v.sum().
#define QD_VEC_MINMAX_(name, pick)                                             \
  template <typename T, int N>                                                 \
  QD_LINALG_FN constexpr vec<T, N> name(const vec<T, N> &a,                    \
                                        const vec<T, N> &b) {                  \
    vec<T, N> r{};                                                             \
    for (int i = 0; i < N; ++i)                                                \
      r[i] = pick(a[i], b[i]);                                                 \
    return r;                                                                  \
  }                                                                            \
  template <typename T, int N>                                                 \
  QD_LINALG_FN constexpr vec<T, N> name(const vec<T, N> &a, T s) {             \
    return name(a, vec_fill_<T, N>(s));                                        \
  }                                                                            \
  template <typename T, int N>                                                 \
  QD_LINALG_FN constexpr vec<T, N> name(T s, const vec<T, N> &a) {             \
    return name(vec_fill_<T, N>(s), a);                                        \
  }                                                                            \
  /** The least (greatest) component. */                                       \
  template <typename T, int N>                                                 \
  QD_LINALG_FN constexpr T name(const vec<T, N> &a) {                          \
    T r = a[0];                                                                \
    for (int i = 1; i < N; ++i)                                                \
      r = pick(r, a[i]);                                                       \
    return r;                                                                  \
  }                                                                            \
  /** Matrices, element by element. */                                         \
  template <typename T, int R, int C>                                          \
  QD_LINALG_FN constexpr mat<T, R, C> name(const mat<T, R, C> &a,              \
                                           const mat<T, R, C> &b) {            \
    mat<T, R, C> r{};                                                          \
    for (int i = 0; i < R; ++i)                                                \
      r.rows[i] = name(a.rows[i], b.rows[i]);                                  \
    return r;                                                                  \
  }
template <typename T, int N> QD_LINALG_FN constexpr vec<T, N> vec_fill_(T s) {
  vec<T, N> r{};
  for (int i = 0; i < N; ++i)
    r[i] = s;
  return r;
}
#define QD_PICK_MIN_(a, b) ((b) < (a) ? (b) : (a))
#define QD_PICK_MAX_(a, b) ((a) < (b) ? (b) : (a))
QD_VEC_MINMAX_(min, QD_PICK_MIN_)
QD_VEC_MINMAX_(max, QD_PICK_MAX_)
#undef QD_PICK_MIN_
#undef QD_PICK_MAX_
#undef QD_VEC_MINMAX_

namespace detail {
/// Two scalar types that mix without surprise: not the same type (that is
/// qd::min(T, T)), and not integers of different signedness (-1 would
/// become a huge unsigned value).
template <typename A, typename B>
using if_mixed_scalars_ = typename if_rows_<
    !is_same_<A, B>::value && scalar_kind_<A>::value != 0 &&
    scalar_kind_<B>::value != 0 &&
    !(scalar_kind_<A>::value == 1 && scalar_kind_<B>::value == 1 &&
      (A(-1) < A(0)) != (B(-1) < B(0)))>::type;
} // namespace detail
/// qd::min(x, 0.5) with a float x: the usual arithmetic conversions, as
/// x + 0.5 (here double).
template <typename A, typename B, detail::if_mixed_scalars_<A, B> = 0>
QD_LINALG_FN constexpr auto min(A a, B b) -> decltype(a + b) {
  using R = decltype(a + b);
  return R(b) < R(a) ? R(b) : R(a);
}
template <typename A, typename B, detail::if_mixed_scalars_<A, B> = 0>
QD_LINALG_FN constexpr auto max(A a, B b) -> decltype(a + b) {
  using R = decltype(a + b);
  return R(a) < R(b) ? R(b) : R(a);
}

/// The sum of the components.
template <typename T, int N> QD_LINALG_FN constexpr T sum(const vec<T, N> &a) {
  T r = a[0];
  for (int i = 1; i < N; ++i)
    r += a[i];
  return r;
}
/// Whether any (every) component is nonzero.
template <typename T, int N>
QD_LINALG_FN constexpr bool any(const vec<T, N> &a) {
  for (int i = 0; i < N; ++i)
    if (a[i] != T(0))
      return true;
  return false;
}
template <typename T, int N>
QD_LINALG_FN constexpr bool all(const vec<T, N> &a) {
  for (int i = 0; i < N; ++i)
    if (a[i] == T(0))
      return false;
  return true;
}
/// Every component converted to U: `qd::cast<int>(v)`.
template <typename U, typename T, int N>
QD_LINALG_FN constexpr vec<U, N> cast(const vec<T, N> &a) {
  vec<U, N> r{};
  for (int i = 0; i < N; ++i)
    r[i] = U(a[i]);
  return r;
}
template <typename U, typename T, int R, int C>
QD_LINALG_FN constexpr mat<U, R, C> cast(const mat<T, R, C> &a) {
  mat<U, R, C> r{};
  for (int i = 0; i < R; ++i)
    r.rows[i] = cast<U>(a.rows[i]);
  return r;
}
/// A vector of N copies of s: `qd::fill<3>(1.0f)`.
template <int N, typename T> QD_LINALG_FN constexpr vec<T, N> fill(T s) {
  return vec_fill_<T, N>(s);
}
/// The unit vector along axis i: `qd::unit<3, float>(1)` is (0, 1, 0).
template <int N, typename T = float>
QD_LINALG_FN constexpr vec<T, N> unit(int i) {
  vec<T, N> r{};
  r[i] = T(1);
  return r;
}
/// The square matrix with d on its diagonal: `qd::diag(v)`, or N copies of
/// s: `qd::diag<3>(2.0f)`.
template <typename T, int N>
QD_LINALG_FN constexpr mat<T, N, N> diag(const vec<T, N> &d) {
  mat<T, N, N> m = mat<T, N, N>::zeros();
  for (int i = 0; i < N; ++i)
    m(i, i) = d[i];
  return m;
}
template <int N, typename T> QD_LINALG_FN constexpr mat<T, N, N> diag(T s) {
  return diag(vec_fill_<T, N>(s));
}
/// The sum of a(i, j) * b(i, j): the Frobenius inner product.
template <typename T, int R, int C>
QD_LINALG_FN constexpr T frobenius_inner(const mat<T, R, C> &a,
                                         const mat<T, R, C> &b) {
  T r = T(0);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      r += a(i, j) * b(i, j);
  return r;
}
/// A scalar on the left of a matrix: s + m, s - m, s / m, component-wise
/// (s * m is above).
template <typename T, int R, int C>
QD_LINALG_FN constexpr mat<T, R, C> operator+(T s, const mat<T, R, C> &a) {
  return a + s;
}
template <typename T, int R, int C>
QD_LINALG_FN constexpr mat<T, R, C> operator-(T s, const mat<T, R, C> &a) {
  return -a + s;
}
template <typename T, int R, int C>
QD_LINALG_FN constexpr mat<T, R, C> operator/(T s, const mat<T, R, C> &a) {
  mat<T, R, C> r{};
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      r(i, j) = s / a(i, j);
  return r;
}

// Component-wise comparisons (Quadrants' `a < b` on vectors; `==` and `!=`
// above compare whole vectors, as C++ does): a vector of bool, with a
// vector or a scalar on either side. `qd::select(c, a, b)` picks a[i]
// where c[i] is nonzero and b[i] elsewhere; a or b may be a scalar.
#define QD_VEC_COMPARE_(name, op)                                              \
  template <typename T, int N>                                                 \
  QD_LINALG_FN constexpr vec<bool, N> name(const vec<T, N> &a,                 \
                                           const vec<T, N> &b) {               \
    vec<bool, N> r{};                                                          \
    for (int i = 0; i < N; ++i)                                                \
      r[i] = a[i] op b[i];                                                     \
    return r;                                                                  \
  }                                                                            \
  template <typename T, int N, typename U, detail::if_scalar_<U> = 0>          \
  QD_LINALG_FN constexpr vec<bool, N> name(const vec<T, N> &a, U s) {          \
    return name(a, vec_fill_<T, N>(T(s)));                                     \
  }                                                                            \
  template <typename T, int N, typename U, detail::if_scalar_<U> = 0>          \
  QD_LINALG_FN constexpr vec<bool, N> name(U s, const vec<T, N> &a) {          \
    return name(vec_fill_<T, N>(T(s)), a);                                     \
  }
QD_VEC_COMPARE_(less, <)
QD_VEC_COMPARE_(less_equal, <=)
QD_VEC_COMPARE_(greater, >)
QD_VEC_COMPARE_(greater_equal, >=)
QD_VEC_COMPARE_(equal, ==)
QD_VEC_COMPARE_(not_equal, !=)
#undef QD_VEC_COMPARE_

template <typename C, typename T, int N>
QD_LINALG_FN constexpr vec<T, N> select(const vec<C, N> &c, const vec<T, N> &a,
                                        const vec<T, N> &b) {
  vec<T, N> r{};
  for (int i = 0; i < N; ++i)
    r[i] = c[i] ? a[i] : b[i];
  return r;
}
template <typename C, typename T, int N, typename U, detail::if_scalar_<U> = 0>
QD_LINALG_FN constexpr vec<T, N> select(const vec<C, N> &c, const vec<T, N> &a,
                                        U b) {
  return select(c, a, vec_fill_<T, N>(T(b)));
}
template <typename C, typename T, int N, typename U, detail::if_scalar_<U> = 0>
QD_LINALG_FN constexpr vec<T, N> select(const vec<C, N> &c, U a,
                                        const vec<T, N> &b) {
  return select(c, vec_fill_<T, N>(T(a)), b);
}
/// A scalar condition: c ? a : b, for any two values of one type.
template <typename T>
QD_LINALG_FN constexpr T select(bool c, const T &a, const T &b) {
  return c ? a : b;
}

} // namespace qd

#endif // QD_LINALG_H
