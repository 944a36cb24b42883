// The mpm88 example: runs Quadrants' mpm88 test case (10 frames of 50
// substeps) with the qd::vec2/qd::mat2 kernel (mpm88.qd) and with the same
// kernel spelled in scalars (mpm88_scalar.qd), checks Quadrants' regression
// values (the means of the final positions' first four powers, y doubled,
// within 1%), and prints the milliseconds per substep of each (median of
// six runs, taken in turns) and their ratio.
#include "mpm88.qd.h"
#include "mpm88_scalar.qd.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

constexpr int Side = 64, NumParticles = Side * Side, Frames = 10,
              SubstepsPerFrame = 50;

/// Quadrants' starting state: a square of still particles falling at 3,
/// as (x0, y0, x1, y1, ...).
struct Start {
  std::vector<float> Pos, Vel;
  Start() : Pos(2 * NumParticles), Vel(2 * NumParticles) {
    for (int I = 0; I < NumParticles; ++I) {
      Pos[2 * I] = float(I % Side) / Side * 0.4f + 0.2f;
      Pos[2 * I + 1] = float(I) / Side / Side * 0.4f + 0.05f;
      Vel[2 * I] = 0;
      Vel[2 * I + 1] = -3;
    }
  }
};

std::vector<qd::vec2> toVec2(const std::vector<float> &Flat) {
  std::vector<qd::vec2> Out;
  for (size_t I = 0; I + 1 < Flat.size(); I += 2)
    Out.push_back({Flat[I], Flat[I + 1]});
  return Out;
}

/// Whether the final positions (x0, y0, x1, y1, ...) match Quadrants'
/// regression values.
bool matchesQuadrants(const std::vector<float> &Pos, const char *Name) {
  const double Expected[4] = {0.31722742, 0.15826741, 0.10224003, 0.07810827};
  bool Ok = true;
  for (int K = 1; K <= 4; ++K) {
    double Sum = 0;
    for (int I = 0; I < NumParticles; ++I)
      Sum += std::pow(double(Pos[2 * I]), K) +
             std::pow(2.0 * double(Pos[2 * I + 1]), K);
    double Mean = Sum / (2.0 * NumParticles);
    bool Close = std::abs(Mean - Expected[K - 1]) <= 1e-2 * Expected[K - 1];
    std::printf("# %s: mean of pos^%d = %.8f (Quadrants %.8f)%s\n", Name, K,
                Mean, Expected[K - 1], Close ? "" : "  MISMATCH");
    Ok = Ok && Close;
  }
  return Ok;
}

/// Milliseconds per substep of Step (clear the grid, run the kernel) over
/// the whole run, the last substep's work waited for.
template <typename StepFn> double msPerSubstep(StepFn &&Step) {
  Step(); // the first call loads the module
  qd::sync();
  auto T0 = std::chrono::steady_clock::now();
  for (int S = 0; S < Frames * SubstepsPerFrame; ++S)
    Step();
  qd::sync();
  auto T1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(T1 - T0).count() /
         (Frames * SubstepsPerFrame);
}

/// Device milliseconds of one call of Kernel (the median of 200, timed with
/// events around each), without the grid's clearing (Clear, before each).
template <typename ClearFn, typename KernelFn>
double kernelMs(ClearFn &&Clear, KernelFn &&Kernel) {
  qd::Event A = qd::create_event({.timing = true});
  qd::Event B = qd::create_event({.timing = true});
  std::vector<double> Ms;
  for (int I = 0; I < 200; ++I) {
    Clear();
    A.record();
    Kernel();
    B.record();
    B.synchronize();
    Ms.push_back(qd::elapsed_ms(A, B));
  }
  std::sort(Ms.begin(), Ms.end());
  return Ms[Ms.size() / 2];
}

struct Times {
  double Step, Kernel;
};

Times runVec(std::vector<float> &Final) {
  Start S;
  mpm88::x.copy_from(toVec2(S.Pos));
  mpm88::v.copy_from(toVec2(S.Vel));
  mpm88::J.fill(1.0f);
  mpm88::C.fill(qd::mat2::zeros());
  double Ms = msPerSubstep([] {
    mpm88::grid_v.fill(qd::vec2::zeros());
    mpm88::grid_m.fill(0);
    mpm88::substep();
  });
  Final.clear();
  for (const qd::vec2 &P : mpm88::x.to_vector()) {
    Final.push_back(P.x);
    Final.push_back(P.y);
  }
  return {Ms, kernelMs(
                  [] {
                    mpm88::grid_v.fill(qd::vec2::zeros());
                    mpm88::grid_m.fill(0);
                  },
                  [] { mpm88::substep(); })};
}

Times runScalar(std::vector<float> &Final) {
  Start S;
  mpm88_scalar::x.copy_from(S.Pos);
  mpm88_scalar::v.copy_from(S.Vel);
  mpm88_scalar::J.fill(1.0f);
  mpm88_scalar::C.fill(0);
  double Ms = msPerSubstep([] {
    mpm88_scalar::grid_v.fill(0);
    mpm88_scalar::grid_m.fill(0);
    mpm88_scalar::substep();
  });
  Final = mpm88_scalar::x.to_vector();
  return {Ms, kernelMs(
                  [] {
                    mpm88_scalar::grid_v.fill(0);
                    mpm88_scalar::grid_m.fill(0);
                  },
                  [] { mpm88_scalar::substep(); })};
}

} // namespace

int main() {
  qd::init();
  std::printf("# backend: %s\n", qd::arch_name(qd::current_arch()));
  std::vector<Times> Vec, Scalar;
  std::vector<float> VecPos, ScalarPos;
  // The simulation restarts each time: the first start's substeps (the
  // regression check's) also load the modules.
  // In turns, each going first in every other round, so that neither
  // gets the warmer machine.
  for (int Round = 0; Round < 6; ++Round) {
    if (Round % 2)
      Scalar.push_back(runScalar(ScalarPos));
    Vec.push_back(runVec(VecPos));
    if (Round % 2 == 0)
      Scalar.push_back(runScalar(ScalarPos));
  }
  bool Ok = matchesQuadrants(VecPos, "qd::vec2") &&
            matchesQuadrants(ScalarPos, "scalars");
  auto Print = [](const char *Key, std::vector<Times> T, double Times::*F) {
    std::sort(T.begin(), T.end(),
              [&](const Times &A, const Times &B) { return A.*F < B.*F; });
    std::printf("%s %.4f %.4f %.4f\n", Key, T[3].*F, T[0].*F, T[5].*F);
    return T[3].*F;
  };
  double VS = Print("mpm88_vec_ms_per_substep", Vec, &Times::Step);
  double SS = Print("mpm88_scalar_ms_per_substep", Scalar, &Times::Step);
  double VK = Print("mpm88_vec_kernel_ms", Vec, &Times::Kernel);
  double SK = Print("mpm88_scalar_kernel_ms", Scalar, &Times::Kernel);
  std::printf("# scalar / vec time, whole substep: %.3f; kernel: %.3f (>= 1: "
              "the vector code is as fast)\n",
              SS / VS, SK / VK);
  return Ok ? 0 : 1;
}
