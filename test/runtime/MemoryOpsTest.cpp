//===- MemoryOpsTest.cpp - Fills, device copies, views and DLPack ---------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DESIGN section 3.1 on the CPU backend (where "device" memory
// is host memory a test can inspect) and, for what the driver is asked to
// do, on the recording mock device: a fill is a memset or one element and
// doubling copies, never a host buffer of the array's size.
//
//===----------------------------------------------------------------------===//

#include "ErrorText.h"
#include "qd/dlpack.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <functional>
#include <numeric>

using namespace qd;
using qd::rt::test::contains;
using qd::rt::test::errorOf;

namespace {


class MemoryOpsTest : public ::testing::Test {
protected:
  void SetUp() override {
    qd::reset();
    unsetenv("QD_ARCH");
    qd::init(Arch::cpu);
  }
  void TearDown() override { qd::reset(); }
};

struct Particle {
  float x, y, z;
  int32_t id;
  bool operator==(const Particle &O) const {
    return x == O.x && y == O.y && z == O.z && id == O.id;
  }
};

TEST_F(MemoryOpsTest, FillSetsEveryElementOfEveryWidth) {
  Ndarray<float, 1> F({1000});
  F.fill(2.5f);
  EXPECT_EQ(F.to_vector(), std::vector<float>(1000, 2.5f));
  Ndarray<double, 2> D({7, 13}); // no short pattern: doubling copies
  D.fill(1.0 / 3);
  EXPECT_EQ(D.to_vector(), std::vector<double>(91, 1.0 / 3));
  Ndarray<int16_t, 1> S({33});
  S.fill(-2);
  EXPECT_EQ(S.to_vector(), std::vector<int16_t>(33, -2));
  Ndarray<uint8_t, 1> B({5});
  B.fill(7);
  EXPECT_EQ(B.to_vector(), std::vector<uint8_t>(5, 7));
  Ndarray<Particle, 1> P({1025});
  P.fill({1, 2, 3, 42});
  EXPECT_EQ(P.to_vector(), std::vector<Particle>(1025, Particle{1, 2, 3, 42}));
  Ndarray<qd::vec3, 1> V({3});
  V.fill(qd::vec3{1, -1, 0.5f});
  EXPECT_EQ(V.to_vector(), std::vector<qd::vec3>(3, qd::vec3{1, -1, 0.5f}));
  Ndarray<float, 0> Scalar({});
  Scalar.fill(9);
  EXPECT_EQ(Scalar.to_vector(), std::vector<float>{9});
  Ndarray<float, 1> Empty({0});
  EXPECT_NO_THROW(Empty.fill(1));
  Stream St = create_stream();
  F.fill_async(-1.0f, St);
  St.synchronize();
  EXPECT_EQ(F.to_vector(), std::vector<float>(1000, -1.0f));
}

TEST_F(MemoryOpsTest, ViewsOfHostMemoryOnTheCpuBackend) {
  std::vector<int> Host(12, 0);
  NdarrayView<int, 2> V(Host.data(), {3, 4});
  EXPECT_EQ(V.shape(0), 3);
  EXPECT_EQ(V.size(), 12u);
  V.fill(5);
  EXPECT_EQ(Host, std::vector<int>(12, 5));
  std::vector<int> Seq(12);
  std::iota(Seq.begin(), Seq.end(), 0);
  V.copy_from(Seq);
  EXPECT_EQ(Host, Seq);
  EXPECT_EQ(V.to_vector(), Seq);
  EXPECT_EQ(errorOf([] { NdarrayView<int, 1> N(nullptr, {4}); }),
            "qd::NdarrayView: a null pointer with 16 bytes of elements");
  EXPECT_NO_THROW((NdarrayView<int, 1>(nullptr, {0})));
  EXPECT_EQ(errorOf([&] { NdarrayView<int, 1> N(Host.data(), {-1}); }),
            "qd::Ndarray: negative extent -1");
}

TEST_F(MemoryOpsTest, CopiesBetweenArraysAndViewsCheckShapesAndOverlap) {
  Ndarray<float, 2> A({4, 8}), B({4, 8}), C({8, 4});
  std::vector<float> Seq(32);
  std::iota(Seq.begin(), Seq.end(), 1.0f);
  A.copy_from(Seq);
  qd::copy(B, A);
  EXPECT_EQ(B.to_vector(), Seq);
  std::vector<float> Host(32, 0);
  NdarrayView<float, 2> H(Host.data(), {4, 8});
  qd::copy(H, B.view());
  EXPECT_EQ(Host, Seq);
  Host.assign(32, 7);
  Stream St = create_stream();
  qd::copy_async(A, H, St);
  St.synchronize();
  EXPECT_EQ(A.to_vector(), std::vector<float>(32, 7));
  EXPECT_EQ(errorOf([&] { qd::copy(C, A); }),
            "qd::copy: the shapes differ: the destination is [8, 4], the "
            "source [4, 8]");
  // Two views of one buffer, 4 floats apart: overlapping.
  NdarrayView<float, 1> Front(static_cast<float *>(A.data()), {16});
  NdarrayView<float, 1> Back(static_cast<float *>(A.data()) + 4, {16});
  EXPECT_EQ(errorOf([&] { qd::copy(Back, Front); }),
            "qd::copy: the source and the destination overlap (64 bytes 16 "
            "bytes apart)");
  EXPECT_NO_THROW(qd::copy(Front, Front)); // the same memory: nothing to do
}

TEST_F(MemoryOpsTest, AViewOutlivingItsArrayIsAnErrorNotFreedMemory) {
  NdarrayView<float, 1> V;
  {
    Ndarray<float, 1> A({8});
    V = A; // implicitly a view
    V.fill(1);
    EXPECT_EQ(A.to_vector(), std::vector<float>(8, 1));
  }
  EXPECT_EQ(errorOf([&] { V.fill(2); }),
            "qd::Ndarray::fill: the memory was released: the array this view "
            "was made from is gone");
  EXPECT_TRUE(contains(errorOf([&] { (void)V.to_vector(); }), "released"));
  Ndarray<float, 1> Before({4});
  NdarrayView<float, 1> Stale = Before.view();
  qd::reset();
  qd::init(Arch::cpu);
  EXPECT_EQ(errorOf([&] { Stale.fill(0); }),
            "qd::Ndarray::fill: the array was created before qd::reset(); "
            "its memory was freed");
}

/// A DLManagedTensor over host memory that counts its deleter's calls.
struct HostTensor {
  std::vector<float> Data;
  std::vector<int64_t> Shape, Strides;
  DLManagedTensor Managed{};
  int Deleted = 0;

  HostTensor(std::vector<int64_t> S, DLDevice Device = {kDLCPU, 0},
             DLDataType Type = {kDLFloat, 32, 1})
      : Shape(std::move(S)) {
    size_t N = 1;
    for (int64_t E : Shape)
      N *= size_t(E);
    Data.assign(N, 0.0f);
    std::iota(Data.begin(), Data.end(), 0.0f);
    DLTensor &T = Managed.dl_tensor;
    T.data = Data.data();
    T.device = Device;
    T.ndim = int(Shape.size());
    T.dtype = Type;
    T.shape = Shape.data();
    Managed.manager_ctx = this;
    Managed.deleter = [](DLManagedTensor *M) {
      ++static_cast<HostTensor *>(M->manager_ctx)->Deleted;
    };
  }
};

TEST_F(MemoryOpsTest, FromDlpackUsesTheTensorInPlaceAndDeletesItOnce) {
  HostTensor T({2, 3});
  {
    DLPackArray<float, 2> A = from_dlpack<float, 2>(&T.Managed);
    EXPECT_EQ(A.shape(1), 3);
    EXPECT_EQ(A.data(), T.Data.data());
    DLPackArray<float, 2> Copy = A;
    NdarrayView<float, 2> V = Copy;
    V.fill(4);
    EXPECT_EQ(T.Data, std::vector<float>(6, 4));
    A = DLPackArray<float, 2>();
    EXPECT_EQ(T.Deleted, 0); // Copy still holds it
    EXPECT_NO_THROW(V.fill(5));
    Copy = DLPackArray<float, 2>();
    EXPECT_EQ(T.Deleted, 1);
    EXPECT_EQ(errorOf([&] { V.fill(6); }),
              "qd::DLPackArray::fill: the memory was released: the array "
              "this view was made from is gone");
  }
  EXPECT_EQ(T.Deleted, 1);
}

TEST_F(MemoryOpsTest, FromDlpackRefusesWhatItCannotUseAndDoesNotTakeIt) {
  HostTensor Gpu({4}, {kDLCUDA, 0});
  EXPECT_EQ(errorOf([&] { from_dlpack<float, 1>(&Gpu.Managed); }),
            "qd::from_dlpack: the tensor is on kDLCUDA 0, the cpu runtime's "
            "memory is kDLCPU 0");
  HostTensor Ints({4}, {kDLCPU, 0}, {kDLInt, 32, 1});
  EXPECT_EQ(errorOf([&] { from_dlpack<float, 1>(&Ints.Managed); }),
            "qd::from_dlpack: the tensor's elements are int32, the array's "
            "float32");
  HostTensor Rank({2, 2});
  EXPECT_EQ(errorOf([&] { from_dlpack<float, 1>(&Rank.Managed); }),
            "qd::from_dlpack: the tensor has 2 dimensions, the array 1");
  HostTensor Strided({2, 3});
  Strided.Strides = {1, 2}; // column-major
  Strided.Managed.dl_tensor.strides = Strided.Strides.data();
  EXPECT_EQ(errorOf([&] { from_dlpack<float, 2>(&Strided.Managed); }),
            "qd::from_dlpack: the tensor is not contiguous row-major: "
            "dimension 1 has stride 2 elements, not 1");
  EXPECT_EQ(errorOf([] { from_dlpack<float, 1>(nullptr); }),
            "qd::from_dlpack: the tensor is null");
  for (HostTensor *T : {&Gpu, &Ints, &Rank, &Strided})
    EXPECT_EQ(T->Deleted, 0);
  // Explicit row-major strides, and any stride on a dimension of extent 1.
  HostTensor Row({1, 3});
  Row.Strides = {99, 1};
  Row.Managed.dl_tensor.strides = Row.Strides.data();
  EXPECT_NO_THROW((from_dlpack<float, 2>(&Row.Managed)));
  EXPECT_EQ(Row.Deleted, 1);
}

TEST_F(MemoryOpsTest, FromDlpackRefusesMalformedTensorsAndDoesNotTakeThem) {
  HostTensor NullShape({2, 3});
  NullShape.Managed.dl_tensor.shape = nullptr;
  EXPECT_EQ(errorOf([&] { from_dlpack<float, 2>(&NullShape.Managed); }),
            "qd::from_dlpack: the tensor's shape is null, with 2 dimensions");
  HostTensor Negative({2, 3});
  Negative.Shape[1] = -3;
  EXPECT_EQ(errorOf([&] { from_dlpack<float, 2>(&Negative.Managed); }),
            "qd::from_dlpack: dimension 1 has a negative extent -3");
  HostTensor NullData({4});
  NullData.Managed.dl_tensor.data = nullptr;
  EXPECT_EQ(errorOf([&] { from_dlpack<float, 1>(&NullData.Managed); }),
            "qd::from_dlpack: the tensor's data is null, with 16 bytes of "
            "elements");
  HostTensor Huge({1, 1});
  Huge.Shape = {int64_t(1) << 62, 8};
  EXPECT_EQ(errorOf([&] { from_dlpack<float, 2>(&Huge.Managed); }),
            "qd::from_dlpack: the tensor's size in bytes overflows");
  HostTensor Misaligned({4});
  Misaligned.Managed.dl_tensor.byte_offset = 2;
  EXPECT_EQ(errorOf([&] { from_dlpack<float, 1>(&Misaligned.Managed); }),
            "qd::from_dlpack: the tensor's data (with its byte_offset 2) is "
            "not aligned to its 4-byte elements");
  HostTensor NegativeRank({2});
  NegativeRank.Managed.dl_tensor.ndim = -1;
  EXPECT_EQ(errorOf([&] { from_dlpack<float, 1>(&NegativeRank.Managed); }),
            "qd::from_dlpack: the tensor has -1 dimensions, the array 1");
  for (HostTensor *T :
       {&NullShape, &Negative, &NullData, &Huge, &Misaligned, &NegativeRank})
    EXPECT_EQ(T->Deleted, 0);

  // Allowed: null strides (compact row-major), a rank-0 tensor without a
  // shape, an empty tensor without data (whatever its strides).
  HostTensor Scalar({});
  Scalar.Managed.dl_tensor.shape = nullptr;
  EXPECT_EQ((from_dlpack<float, 0>(&Scalar.Managed).to_vector()),
            std::vector<float>{0});
  HostTensor Empty({0, 3});
  Empty.Managed.dl_tensor.data = nullptr;
  Empty.Strides = {7, 7};
  Empty.Managed.dl_tensor.strides = Empty.Strides.data();
  EXPECT_EQ((from_dlpack<float, 2>(&Empty.Managed).size()), 0u);
  EXPECT_EQ(Scalar.Deleted + Empty.Deleted, 2);
}

TEST_F(MemoryOpsTest, NewArraysAreZeroWhereFreedArraysWere) {
  // The allocator hands a freed block out again: its bytes must not show.
  for (int Round = 0; Round < 8; ++Round) {
    {
      Ndarray<float, 1> Old({4096});
      Old.fill(3.5f);
      Ndarray<int32_t, 2> Small({3, 5});
      Small.fill(-1);
    }
    Ndarray<float, 1> New({4096});
    EXPECT_EQ(New.to_vector(), std::vector<float>(4096, 0.0f));
    Ndarray<int32_t, 2> Small({3, 5});
    EXPECT_EQ(Small.to_vector(), std::vector<int32_t>(15, 0));
  }
}

TEST_F(MemoryOpsTest, ToDlpackExportsAndOwnsWhatIsMovedIn) {
  Ndarray<float, 2> A({2, 5});
  A.fill(3);
  DLManagedTensor *T = to_dlpack(A);
  EXPECT_EQ(T->dl_tensor.data, A.data());
  EXPECT_EQ(T->dl_tensor.ndim, 2);
  EXPECT_EQ(T->dl_tensor.shape[1], 5);
  EXPECT_EQ(T->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(T->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(T->dl_tensor.dtype.bits, 32);
  // Round trip: the consumer (here qdc itself) deletes it once.
  {
    DLPackArray<float, 2> Back = from_dlpack<float, 2>(T);
    EXPECT_EQ(Back.to_vector(), std::vector<float>(10, 3));
  }
  Ndarray<int64_t, 1> Moved({4});
  Moved.fill(-7);
  DLManagedTensor *Owned = to_dlpack(std::move(Moved));
  EXPECT_EQ(Moved.data(), nullptr);
  const auto *Values = static_cast<const int64_t *>(Owned->dl_tensor.data);
  EXPECT_EQ(Values[3], -7); // the memory lives in the tensor
  EXPECT_EQ(Owned->dl_tensor.dtype.code, kDLInt);
  Owned->deleter(Owned);
}

} // namespace
