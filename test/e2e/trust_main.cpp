// Runs trust.qd's kernels and compares each result with serial C++.
#include "Check.h"
#include "trust.qd.h"

#include <string>
#include <vector>

int main() {
  qd::init();
  Check C;

  trust::param_assigned(3);
  C.all("param_assigned", trust::out.to_vector(),
        [](size_t I) { return I < 4 ? 7 : I < 7 ? -1 : 0; });

  {
    qd::Ndarray<int32_t, 1> p({4});
    trust::pointer_assigned(static_cast<int32_t *>(p.data()));
    C.all("pointer_assigned", p.to_vector(),
          [](size_t I) { return I < 2 ? 0 : 40 + int(I) - 2; });
  }

  {
    qd::Ndarray<int32_t, 1> p({4}), q({16});
    p.copy_from(std::vector<int32_t>{5, 0, 0, 0});
    trust::pointer_reads(static_cast<int32_t *>(p.data()),
                        static_cast<int32_t *>(q.data()));
    C.all("pointer_reads", q.to_vector(),
          [](size_t I) { return I < 4 ? 5 : I < 8 ? 7 : 0; });
  }

  trust::range_reads_written(20);
  {
    std::vector<int32_t> G = trust::g.to_vector();
    C.all("range_reads_written", G, [](size_t I) {
      size_t Row = I / 32, Col = I % 32;
      return Row >= 2 && Col < 20 ? 1 : 0;
    });
  }

  trust::out.fill(0);
  trust::range_through_call();
  C.all("range_through_call", trust::out.to_vector(),
        [](size_t I) { return I == 0 ? 3 : I <= 3 ? 13 : 0; });

  {
    std::vector<int32_t> A(2048), B(2048);
    for (int I = 0; I < 2048; ++I) {
      A[I] = I % 13 - 6;
      B[I] = (I * 5) % 17;
    }
    trust::va.copy_from(A);
    trust::vb.copy_from(B);
    trust::interleaved();
    std::vector<int32_t> Want = A;
    for (int I = 0; I < 1024; ++I)
      Want[I] = Want[I] * 3 + B[(I * 7) % 2048];
    C.all("interleaved", trust::va.to_vector(),
          [&](size_t I) { return Want[I]; });
  }
  trust::shared_atomics();
  {
    std::vector<int32_t> BS = trust::block_size.to_vector();
    C.all("shared_atomics sum", trust::shared_sum.to_vector(),
          [&](size_t I) { return BS[I] * 0.25; }, 1e-6);
    C.all("shared_atomics min", trust::shared_min.to_vector(),
          [](size_t) { return -7; });
    C.all("shared_atomics max", trust::shared_max.to_vector(),
          [&](size_t I) { return BS[I] - 1 + 7; });
    C.all("shared_atomics int8", trust::shared_i8.to_vector(), [&](size_t I) {
      int T = int(I) % BS[I];
      return ((T + 1) % BS[I]) % 3 == 0 ? 1 : -1;
    });
  }

  trust::negative_pow(-3.0);
  C.all("negative_pow", trust::powers.to_vector(), [](size_t I) {
    long long P = 1;
    for (size_t K = 0; K < I; ++K)
      P *= -3;
    return P;
  });
  {
    std::vector<float> A(512), B(512);
    double Want = 0.5;
    for (int I = 0; I < 512; ++I) {
      A[I] = float(I % 7);
      B[I] = float(I % 5) * 0.5f;
      if (I < 256)
        Want += A[I] + B[I];
    }
    trust::sp_a.copy_from(A);
    trust::sp_b.copy_from(B);
    float Got = trust::groups_reduce(512);
    C.that("groups_reduce", Got == float(Want));
  }
  trust::pick(1, 3);
  C.all("pick", trust::picked.to_vector(),
        [](size_t I) { return I < 4 ? 2 : 4; });
  C.that("atomic_of_temporary", trust::atomic_of_temporary() == 51.0f);
  trust::nested_local();
  C.all("nested_local", trust::nested_counts.to_vector(),
        [](size_t I) { return I == 0 ? 2 * 3 * 2 : 2; });
  trust::local_after_assign(2);
  C.all("local_after_assign", trust::after_assign.to_vector(),
        [](size_t) { return 7; });
  {
    qd::Ndarray<int32_t, 1> X({4});
    trust::folds_to_constant(X);
    C.all("folds_to_constant", trust::folded.to_vector(),
          [](size_t I) { return 23 + int(I); });
  }
  {
    std::vector<int32_t> Cells(16);
    for (int I = 0; I < 16; ++I)
      Cells[I] = I;
    trust::sr_cells.copy_from(Cells);
    trust::serial_then_reduce();
    uint64_t R = 9;
    for (int I = 0; I < 16; ++I)
      R |= uint64_t(Cells[I] & 7) << (4 * I);
    for (int I = 0; I < 39; ++I)
      Cells[I % 16] = int32_t(R % 61) + I;
    for (int I = 0; I < 16; ++I)
      R ^= uint64_t(I);
    C.that("serial_then_reduce", trust::sr_out.to_vector()[0] == R);
    C.all("serial_then_reduce cells", trust::sr_cells.to_vector(),
          [&](size_t I) { return Cells[I]; });
  }
  for (int32_t N : {0, 100, 5000}) {
    trust::constant_scalars(N);
    int64_t Big = int64_t(3) << 40;
    for (int32_t I = 0; I < N; ++I)
      Big += I;
    std::vector<double> Want = {double(N ? N - 1 : -7),
                                1.0 + 0x1p-40 + 0.25 * N, double(Big),
                                double(N ? 0.5f : 1.5e30f)};
    C.all(("constant_scalars n=" + std::to_string(N)).c_str(),
          trust::const_out.to_vector(), [&](size_t I) { return Want[I]; });
  }
  {
    qd::Ndarray<float, 1> X({10});
    X.fill(1.0f);
    for (int Call = 0; Call < 3; ++Call) {
      C.that("uninitialized_sum starts at zero each call",
             trust::uninitialized_sum(X) == 10.0f);
      C.that("uninitialized_count starts at zero, its pointer null",
             trust::uninitialized_count(5000) == 5000);
    }
  }
  return C.finish();
}
