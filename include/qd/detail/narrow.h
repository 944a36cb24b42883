//===- qd/detail/narrow.h - When a narrow entry may run ---------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the generated <task>_narrow_grid functions of the host object call
// (qdrt_task_desc::narrow_grid, docs/compiler.md): whether a tiled task's
// narrow entry may run for a launch, and its grid. Plain C++17, so that
// the runtime's tests build it with the host compiler. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_NARROW_H
#define QD_DETAIL_NARROW_H

#include <cstddef>
#include <cstdint>

namespace qd::detail {

/// The elements of an array of extents extent[0..dims), at most 2^31 when
/// there are more (a narrow entry's offsets must fit 31 bits): a negative
/// extent, or an empty array with an extent over 2^31, counts as 2^31.
inline int64_t extent_elements_(const int64_t *extent, int dims) {
  constexpr int64_t Over = int64_t(1) << 31;
  int64_t n = 1;
  for (int d = 0; d < dims; ++d)
    if (extent[d] < 0 || extent[d] > Over)
      return Over;
  for (int d = 0; d < dims; ++d) {
    n *= extent[d];
    if (n > Over)
      return Over;
  }
  return n;
}

/// One dimension of a tiled task's range, [begin, end), in tiles of
/// `tile` that start at multiples of it.
struct narrow_dim_ {
  int64_t begin, end;
  uint32_t tile;
};

/// qdrt_task_desc::narrow_grid for a task whose ndarray arguments have
/// elements[0..n_elements) elements and whose range is dims[0..rank), its
/// last dimension last: 1 and the grid of one block per tile (x the last
/// dimension's tiles, y the one's before, z the first of three) when every
/// ndarray has fewer than 2^31 elements, the range is not empty, each
/// dimension's places (its first tile starting before the range) fit 31
/// bits and the tiles a grid's dimension (2^31 - 1 along x, 65,535 along y
/// and z); else 0, and the task's own entry runs.
inline int narrow_grid_(const int64_t *elements, size_t n_elements,
                        const narrow_dim_ *dims, int rank, uint32_t *grid) {
  constexpr int64_t Limit = (int64_t(1) << 31) - 1;
  for (size_t i = 0; i < n_elements; ++i)
    if (elements[i] > Limit)
      return 0;
  if (rank > 3)
    return 0;
  uint32_t g[3] = {1, 1, 1};
  for (int d = 0; d < rank; ++d) {
    const narrow_dim_ &x = dims[d];
    const int64_t t = x.tile;
    if (t == 0 || x.end <= x.begin || x.begin < -Limit || x.end > Limit)
      return 0;
    int64_t shift = (x.begin % t + t) % t;
    int64_t places = x.end - x.begin + shift;
    if (places > Limit - t)
      return 0;
    int64_t tiles = (places + t - 1) / t;
    int axis = rank - 1 - d;
    if (tiles > (axis == 0 ? Limit : 65535))
      return 0;
    g[axis] = uint32_t(tiles);
  }
  grid[0] = g[0];
  grid[1] = g[1];
  grid[2] = g[2];
  return 1;
}

} // namespace qd::detail

#endif // QD_DETAIL_NARROW_H
