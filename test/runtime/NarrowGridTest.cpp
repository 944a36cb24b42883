//===- NarrowGridTest.cpp - When a tiled task's narrow entry may run ------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qd::detail::narrow_grid_, which the generated <task>_narrow_grid calls:
// a block per tile, x the last dimension's tiles; tiles that start at
// multiples of their width before a range's beginning; no narrow entry for
// an ndarray of 2^31 elements or more, an empty range, or more tiles than a
// grid's axis holds; an array's elements counted without overflow.
//
//===----------------------------------------------------------------------===//

#include "qd/detail/narrow.h"

#include "gtest/gtest.h"

using qd::detail::narrow_dim_;
using qd::detail::narrow_grid_;

namespace {

constexpr int64_t Two31 = int64_t(1) << 31;

TEST(NarrowGridTest, ABlockPerTileTheLastDimensionAlongX) {
  const int64_t Elements[] = {384 * 384 * 384, 0};
  // The 3-D convolution's interior: planes 1..382, rows and columns from 1.
  const narrow_dim_ Dims[] = {{1, 383, 1}, {1, 383, 8}, {1, 383, 32}};
  uint32_t Grid[3] = {};
  ASSERT_EQ(narrow_grid_(Elements, 2, Dims, 3, Grid), 1);
  // Rows 1..382 from a tile at 0: 383 places, 48 tiles of 8; columns 12
  // tiles of 32; 382 planes.
  EXPECT_EQ(Grid[0], 12u);
  EXPECT_EQ(Grid[1], 48u);
  EXPECT_EQ(Grid[2], 382u);

  const narrow_dim_ Two[] = {{0, 100, 8}, {0, 64, 32}};
  ASSERT_EQ(narrow_grid_(Elements, 1, Two, 2, Grid), 1);
  EXPECT_EQ(Grid[0], 2u);
  EXPECT_EQ(Grid[1], 13u);
  EXPECT_EQ(Grid[2], 1u);
}

TEST(NarrowGridTest, ANegativeBeginningStartsAtTheTileBelow) {
  // -5..27 in tiles of 8: the tile at -8 holds -8..-1, places 3 + 32.
  const narrow_dim_ Dims[] = {{-5, 27, 8}};
  uint32_t Grid[3] = {};
  ASSERT_EQ(narrow_grid_(nullptr, 0, Dims, 1, Grid), 1);
  EXPECT_EQ(Grid[0], 5u);
}

TEST(NarrowGridTest, NoNarrowEntryBeyondWhatItsOffsetsAndGridHold) {
  uint32_t Grid[3] = {7, 7, 7};
  const narrow_dim_ Small[] = {{0, 10, 8}, {0, 10, 32}};
  const int64_t Fits[] = {Two31 - 1}, TooMany[] = {16, Two31};
  EXPECT_EQ(narrow_grid_(Fits, 1, Small, 2, Grid), 1);
  EXPECT_EQ(narrow_grid_(TooMany, 2, Small, 2, Grid), 0);
  // An empty range: the task's own entry (which runs nothing).
  const narrow_dim_ Empty[] = {{5, 5, 8}, {0, 10, 32}};
  EXPECT_EQ(narrow_grid_(nullptr, 0, Empty, 2, Grid), 0);
  // 65,535 tiles along y fit; one more does not; x holds 2^31 - 1.
  const narrow_dim_ YFull[] = {{0, 65535 * 4, 4}, {0, 8, 8}};
  const narrow_dim_ YOver[] = {{0, 65535 * 4 + 1, 4}, {0, 8, 8}};
  EXPECT_EQ(narrow_grid_(nullptr, 0, YFull, 2, Grid), 1);
  EXPECT_EQ(Grid[1], 65535u);
  EXPECT_EQ(narrow_grid_(nullptr, 0, YOver, 2, Grid), 0);
  const narrow_dim_ XLong[] = {{0, 1 << 30, 1}};
  EXPECT_EQ(narrow_grid_(nullptr, 0, XLong, 1, Grid), 1);
  EXPECT_EQ(Grid[0], uint32_t(1) << 30);
  // Places past 2^31: a 32-bit place would wrap.
  const narrow_dim_ XOver[] = {{0, Two31, 1}};
  EXPECT_EQ(narrow_grid_(nullptr, 0, XOver, 1, Grid), 0);
}

TEST(NarrowGridTest, AnArraysElementsSaturateAtTwoToThe31) {
  using qd::detail::extent_elements_;
  const int64_t A[] = {1024, 1024, 2047}, B[] = {1024, 1024, 2048};
  EXPECT_EQ(extent_elements_(A, 3), int64_t(1024) * 1024 * 2047);
  EXPECT_EQ(extent_elements_(B, 3), Two31);
  // A product past 64 bits, an empty array with an extent past 2^31, a
  // negative extent.
  const int64_t C[] = {int64_t(1) << 40, int64_t(1) << 40};
  const int64_t Empty[] = {0, int64_t(1) << 40}, Negative[] = {-1, 4};
  EXPECT_EQ(extent_elements_(C, 2), Two31);
  EXPECT_EQ(extent_elements_(Empty, 2), Two31);
  EXPECT_EQ(extent_elements_(Negative, 2), Two31);
  EXPECT_EQ(extent_elements_(nullptr, 0), 1);
}

} // namespace
