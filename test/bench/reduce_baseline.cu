// The reduction baselines, built by nvcc in utils/bench-gpu.sh: CUB's
// DeviceReduce (with its result copied back to the host, as a kernel's
// return value is) and a plain kernel with one atomicAdd per element.
// Prints `key median min max` lines in milliseconds per call.
#include <cub/cub.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t r = (x);                                                       \
    if (r != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(r));      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void atomicSum(const float *x, long long n, float *out) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    atomicAdd(out, x[i]);
}

template <typename F> void measure(const char *Key, F Call, float Want) {
  for (int W = 0; W < 3; ++W)
    Call();
  std::vector<double> Ms;
  for (int R = 0; R < 30; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    float Got = Call();
    auto T1 = std::chrono::steady_clock::now();
    if (Got != Want) {
      std::fprintf(stderr, "%s: %g, expected %g\n", Key, Got, Want);
      std::exit(1);
    }
    Ms.push_back(std::chrono::duration<double, std::milli>(T1 - T0).count());
  }
  std::sort(Ms.begin(), Ms.end());
  std::printf("%s %.4f %.4f %.4f\n", Key, Ms[Ms.size() / 2], Ms.front(),
              Ms.back());
}

int main() {
  const long long N = 1ll << 26;
  std::vector<float> H(N);
  for (long long I = 0; I < N; ++I)
    H[I] = float(I % 7) - 3.0f + (I == N / 3 ? 100.0f : 0.0f) -
           (I == N / 5 ? 100.0f : 0.0f);
  double Sum = 0;
  float Min = H[0], Max = H[0];
  for (float V : H) {
    Sum += V;
    Min = std::min(Min, V);
    Max = std::max(Max, V);
  }
  float *X, *Out;
  CHECK(cudaMalloc(&X, N * sizeof(float)));
  CHECK(cudaMalloc(&Out, sizeof(float)));
  CHECK(cudaMemcpy(X, H.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  void *Tmp = nullptr;
  size_t Bytes = 0, B2 = 0;
  CHECK(cub::DeviceReduce::Sum(Tmp, Bytes, X, Out, N));
  CHECK(cub::DeviceReduce::Max(Tmp, B2, X, Out, N));
  CHECK(cudaMalloc(&Tmp, std::max(Bytes, B2)));
  Bytes = std::max(Bytes, B2);
  auto Back = [&] {
    float V;
    CHECK(cudaMemcpy(&V, Out, sizeof(float), cudaMemcpyDeviceToHost));
    return V;
  };
  measure("reduce_sum_ms", [&] {
    CHECK(cub::DeviceReduce::Sum(Tmp, Bytes, X, Out, N));
    return Back();
  }, float(Sum));
  measure("reduce_min_ms", [&] {
    CHECK(cub::DeviceReduce::Min(Tmp, Bytes, X, Out, N));
    return Back();
  }, Min);
  measure("reduce_max_ms", [&] {
    CHECK(cub::DeviceReduce::Max(Tmp, Bytes, X, Out, N));
    return Back();
  }, Max);
  int Sms = 0;
  CHECK(cudaDeviceGetAttribute(&Sms, cudaDevAttrMultiProcessorCount, 0));
  measure("reduce_atomic_sum_ms", [&] {
    CHECK(cudaMemsetAsync(Out, 0, sizeof(float)));
    atomicSum<<<Sms * 8, 256>>>(X, N, Out);
    return Back();
  }, float(Sum));
}
