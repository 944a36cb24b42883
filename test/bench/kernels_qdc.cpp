// qdc's side of the kernel suite (kernels.qd; utils/bench-gpu.sh runs it
// beside kernels_baseline.cu): for each kernel, GPU milliseconds per run
// from the same inputs as `kern_<name>_ms median min max`, and the checksum
// of its result.
#include "Stat.h"
#include "kernels.qd.h"
#include "kernels_data.h"

#include <functional>
#include <vector>

using namespace kernels_data;
using namespace bench_stat;

namespace {

/// Reset() (not timed), then Run() between two events, Runs + 1 times.
void measure(const char *Name, const std::function<void()> &Reset,
             const std::function<void()> &Run, qd::Stream &S) {
  qd::Event A = qd::create_event({.timing = true});
  qd::Event B = qd::create_event({.timing = true});
  std::vector<double> Ms;
  for (int R = 0; R <= Runs; ++R) {
    Reset();
    S.synchronize();
    A.record(S);
    Run();
    B.record(S);
    B.synchronize();
    if (R)
      Ms.push_back(qd::elapsed_ms(A, B));
  }
  std::string Key = std::string("kern_") + Name + "_ms";
  print(Key.c_str(), stat(Ms));
}

using M2 = qd::Ndarray<float, 2>;
using V1 = qd::Ndarray<float, 1>;

} // namespace

int main() {
  qd::init();
  qd::Stream S = qd::create_stream();
  qd::Launch On = qd::on(S);
  // C = alpha op(A, B) + beta C, from the same A, B and C each run.
  auto Product = [&](const char *Name, int64_t N, auto Kernel) {
    M2 A({N, N}), B({N, N}), C({N, N});
    A.copy_from(matrix(N, N, 1));
    B.copy_from(matrix(N, N, 2));
    std::vector<float> C0 = matrix(N, N, 3);
    measure(
        Name, [&] { C.copy_from(C0); },
        [&] { Kernel(C, A, B, 1.5f, 1.2f, On); }, S);
    printSum(Name, C.to_vector());
  };
  Product("gemm", GemmN, [](auto &&...Args) { kernels::gemm(Args...); });
  Product("syr2k", Syr2kN, [](auto &&...Args) { kernels::syr2k(Args...); });
  {
    int64_t N = Conv2dN;
    M2 In({N, N}), Out({N, N});
    In.copy_from(matrix(N, N, 1));
    std::vector<float> Zero(N * N, 0.0f);
    measure(
        "conv2d", [&] { Out.copy_from(Zero); },
        [&] { kernels::conv2d(Out, In, On); }, S);
    printSum("conv2d", Out.to_vector());
  }
  {
    int64_t N = Conv3dN;
    qd::Ndarray<float, 3> In({N, N, N}), Out({N, N, N});
    In.copy_from(matrix(N * N, N, 1));
    std::vector<float> Zero(N * N * N, 0.0f);
    measure(
        "conv3d", [&] { Out.copy_from(Zero); },
        [&] { kernels::conv3d(Out, In, On); }, S);
    printSum("conv3d", Out.to_vector());
  }
  {
    int64_t N = FdtdN;
    M2 Ex({N, N}), Ey({N, N}), Hz({N, N});
    std::vector<float> Ex0 = matrix(N, N, 1), Ey0 = matrix(N, N, 2),
                       Hz0 = matrix(N, N, 3);
    measure(
        "fdtd2d",
        [&] {
          Ex.copy_from(Ex0);
          Ey.copy_from(Ey0);
          Hz.copy_from(Hz0);
        },
        [&] {
          for (int T = 0; T < FdtdSteps; ++T)
            kernels::fdtd_step(Ex, Ey, Hz, float(T), On);
        },
        S);
    printSum("fdtd2d", Hz.to_vector());
  }
  {
    int64_t N = JacobiN;
    M2 A({N, N}), B({N, N});
    std::vector<float> A0 = matrix(N, N, 1), B0 = matrix(N, N, 2);
    measure(
        "jacobi2d",
        [&] {
          A.copy_from(A0);
          B.copy_from(B0);
        },
        [&] {
          for (int T = 0; T < JacobiSteps; ++T)
            kernels::jacobi_step(A, B, On);
        },
        S);
    printSum("jacobi2d", A.to_vector());
  }
  {
    int64_t N = MvtN;
    M2 A({N, N});
    V1 X1({N}), X2({N}), Y1({N}), Y2({N});
    A.copy_from(matrix(N, N, 1));
    Y1.copy_from(matrix(1, N, 2));
    Y2.copy_from(matrix(1, N, 3));
    std::vector<float> X10 = matrix(1, N, 4), X20 = matrix(1, N, 5);
    auto Mvt = [&](const char *Name, auto Kernel) {
      measure(
          Name,
          [&] {
            X1.copy_from(X10);
            X2.copy_from(X20);
          },
          [&] { Kernel(X1, X2, A, Y1, Y2, On); }, S);
      std::vector<float> Both = X1.to_vector(), Second = X2.to_vector();
      Both.insert(Both.end(), Second.begin(), Second.end());
      printSum(Name, Both);
    };
    Mvt("mvt", [](auto &&...Args) { kernels::mvt(Args...); });
    Mvt("mvt_serial", [](auto &&...Args) { kernels::mvt_serial(Args...); });
  }
  {
    int64_t N = LuN;
    M2 A({N, N});
    std::vector<float> A0 = luMatrix(N);
    measure(
        "lu", [&] { A.copy_from(A0); },
        [&] {
          for (int64_t K = 0; K < N; ++K)
            kernels::lu_step(A, K, On);
        },
        S);
    printSum("lu", A.to_vector());
  }
}
