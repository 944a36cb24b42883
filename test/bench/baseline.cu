// The hand-written CUDA baseline for utils/bench-gpu.sh, built with
// `nvcc -O3` on the GPU machine. The same work as bench.qd, written the way
// a careful CUDA programmer would: K pre-created streams and events for
// fork/join, raw cuLaunchKernel, nvcc-compiled saxpy and stencil, and a
// device-to-device copy for the bandwidth ceiling. Prints `key value` lines.
#include <cuda.h>
#include <cuda_runtime.h>

#include "Stat.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    auto r = (x);                                                              \
    if (r != 0) {                                                              \
      std::fprintf(stderr, "%s failed: %d (line %d)\n", #x, int(r), __LINE__); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int Lanes = 128;

__device__ float chain(float x, int steps) {
  for (int s = 0; s < steps; ++s)
    x = x * 0.99999f + 0.5f;
  return x;
}

__global__ void spin(float *sink, int group, int steps) {
  int i = threadIdx.x;
  sink[group * Lanes + i] = chain(float(i), steps);
}

__global__ void saxpy(float *y, const float *x, float a, long n) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void stencil(float *out, const float *in, long rows, long cols) {
  long n = (rows - 2) * (cols - 2);
  for (long k = blockIdx.x * long(blockDim.x) + threadIdx.x; k < n;
       k += long(gridDim.x) * blockDim.x) {
    long i = k / (cols - 2) + 1, j = k % (cols - 2) + 1;
    out[i * cols + j] = 0.2f * (in[i * cols + j] + in[(i - 1) * cols + j] +
                                in[(i + 1) * cols + j] + in[i * cols + j - 1] +
                                in[i * cols + j + 1]);
  }
}

using namespace bench_stat;

Stat deviceMs(const std::function<void()> &Launch, cudaStream_t S, int Runs) {
  cudaEvent_t A, B;
  CHECK(cudaEventCreate(&A));
  CHECK(cudaEventCreate(&B));
  for (int W = 0; W < 3; ++W)
    Launch();
  CHECK(cudaStreamSynchronize(S));
  std::vector<double> Ms;
  for (int R = 0; R < Runs; ++R) {
    CHECK(cudaEventRecord(A, S));
    Launch();
    CHECK(cudaEventRecord(B, S));
    CHECK(cudaEventSynchronize(B));
    float Ms1;
    CHECK(cudaEventElapsedTime(&Ms1, A, B));
    Ms.push_back(Ms1);
  }
  return stat(Ms);
}

Stat hostUsPerCall(const std::function<void()> &Launch, cudaStream_t S) {
  constexpr int Batch = 200, Batches = 25;
  for (int W = 0; W < Batch; ++W)
    Launch();
  CHECK(cudaStreamSynchronize(S));
  std::vector<double> Us;
  for (int R = 0; R < Batches; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    for (int I = 0; I < Batch; ++I)
      Launch();
    auto T1 = std::chrono::steady_clock::now();
    CHECK(cudaStreamSynchronize(S));
    Us.push_back(std::chrono::duration<double, std::micro>(T1 - T0).count() /
                 Batch);
  }
  return stat(Us);
}

/// Fork/join on pooled streams with pre-created events.
struct ForkJoin {
  std::vector<cudaStream_t> Streams;
  std::vector<cudaEvent_t> Joins;
  cudaEvent_t Fork;
  explicit ForkJoin(int K) {
    Streams.resize(K);
    Joins.resize(K);
    for (int G = 0; G < K; ++G) {
      CHECK(cudaStreamCreateWithFlags(&Streams[G], cudaStreamNonBlocking));
      CHECK(cudaEventCreateWithFlags(&Joins[G], cudaEventDisableTiming));
    }
    CHECK(cudaEventCreateWithFlags(&Fork, cudaEventDisableTiming));
  }
  void run(cudaStream_t Launch,
           const std::function<void(int, cudaStream_t)> &Group) {
    CHECK(cudaEventRecord(Fork, Launch));
    for (size_t G = 0; G < Streams.size(); ++G) {
      CHECK(cudaStreamWaitEvent(Streams[G], Fork, 0));
      Group(int(G), Streams[G]);
      CHECK(cudaEventRecord(Joins[G], Streams[G]));
      CHECK(cudaStreamWaitEvent(Launch, Joins[G], 0));
    }
  }
};

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: baseline <bench.ptx> <steps>\n");
    return 2;
  }
  int Steps = std::atoi(argv[2]);
  CHECK(cudaFree(nullptr));
  cudaStream_t S;
  CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  float *Sink;
  CHECK(cudaMalloc(&Sink, 16 * Lanes * sizeof(float)));

  print("group_ms",
        deviceMs([&] { spin<<<1, Lanes, 0, S>>>(Sink, 0, Steps); }, S, 5));
  for (int K : {1, 2, 4, 8, 16}) {
    ForkJoin FJ(K);
    Stat Par = deviceMs(
        [&] {
          FJ.run(S, [&](int G, cudaStream_t GS) {
            spin<<<1, Lanes, 0, GS>>>(Sink, G, Steps);
          });
        },
        S, 7);
    Stat Ser = deviceMs(
        [&] {
          for (int G = 0; G < K; ++G)
            spin<<<1, Lanes, 0, S>>>(Sink, G, Steps);
        },
        S, 7);
    char Key[64];
    std::snprintf(Key, sizeof(Key), "conc_parallel_ms_%d", K);
    print(Key, Par);
    std::snprintf(Key, sizeof(Key), "conc_serial_ms_%d", K);
    print(Key, Ser);
  }

  // Raw cuLaunchKernel on qdc's own PTX: the launcher's floor.
  std::ifstream In(argv[1]);
  std::stringstream Text;
  Text << In.rdbuf();
  std::string Ptx = Text.str();
  CUmodule Mod;
  CHECK(cuModuleLoadData(&Mod, Ptx.c_str()));
  CUfunction Empty1, Empty4[4];
  CHECK(cuModuleGetFunction(&Empty1, Mod, "empty1_t0"));
  for (int G = 0; G < 4; ++G)
    CHECK(cuModuleGetFunction(&Empty4[G], Mod,
                              ("empty4_t" + std::to_string(G)).c_str()));
  int N = 1;
  unsigned long long Count = 1;
  void *Params[] = {&N, &Count};
  print("call_plain_us", hostUsPerCall(
                             [&] {
                               CHECK(cuLaunchKernel(Empty1, 1, 1, 1, 128, 1, 1,
                                                    0, S, Params, nullptr));
                             },
                             S));
  ForkJoin FJ4(4);
  print("call_fork4_us",
        hostUsPerCall(
            [&] {
              FJ4.run(S, [&](int G, cudaStream_t GS) {
                CHECK(cuLaunchKernel(Empty4[G], 1, 1, 1, 128, 1, 1, 0, GS,
                                     Params, nullptr));
              });
            },
            S));

  const long NX = 1L << 26;
  float *X, *Y;
  CHECK(cudaMalloc(&X, NX * 4));
  CHECK(cudaMalloc(&Y, NX * 4));
  CHECK(cudaMemset(X, 0, NX * 4));
  CHECK(cudaMemset(Y, 0, NX * 4));
  int SMs;
  CHECK(cudaDeviceGetAttribute(&SMs, cudaDevAttrMultiProcessorCount, 0));
  auto Grid = [&](long Work) {
    return int(std::min<long>((Work + 255) / 256, long(SMs) * 32));
  };
  Stat Saxpy =
      deviceMs([&] { saxpy<<<Grid(NX), 256, 0, S>>>(Y, X, 0.5f, NX); }, S, 15);
  print("saxpy_gbs",
        {3.0 * NX * 4 / Saxpy.Median / 1e6, 3.0 * NX * 4 / Saxpy.Max / 1e6,
         3.0 * NX * 4 / Saxpy.Min / 1e6});
  const long Side = 8192;
  float *SIn, *SOut;
  CHECK(cudaMalloc(&SIn, Side * Side * 4));
  CHECK(cudaMalloc(&SOut, Side * Side * 4));
  CHECK(cudaMemset(SIn, 0, Side * Side * 4));
  Stat Sten = deviceMs(
      [&] {
        stencil<<<Grid((Side - 2) * (Side - 2)), 256, 0, S>>>(SOut, SIn, Side,
                                                              Side);
      },
      S, 15);
  double Bytes = 2.0 * Side * Side * 4;
  print("stencil_gbs", {Bytes / Sten.Median / 1e6, Bytes / Sten.Max / 1e6,
                        Bytes / Sten.Min / 1e6});
  Stat Copy = deviceMs(
      [&] {
        CHECK(cudaMemcpyAsync(Y, X, NX * 4, cudaMemcpyDeviceToDevice, S));
      },
      S, 15);
  print("copy_gbs",
        {2.0 * NX * 4 / Copy.Median / 1e6, 2.0 * NX * 4 / Copy.Max / 1e6,
         2.0 * NX * 4 / Copy.Min / 1e6});
  // What qdc's fill and copy are measured against.
  Stat Fill = deviceMs(
      [&] { CHECK(cudaMemsetAsync(X, 0x3f, NX * 4, S)); }, S, 15);
  print("fill_ms", {Fill.Median, Fill.Min, Fill.Max});
  print("fill_f64_ms", {Fill.Median, Fill.Min, Fill.Max});
  print("copy_ms", {Copy.Median, Copy.Min, Copy.Max});

  // The same timeline as qdc's: a kernel on S, cudaMemcpyAsync of 256 MiB
  // of pageable host memory on another stream, alone and together.
  cudaStream_t C;
  CHECK(cudaStreamCreateWithFlags(&C, cudaStreamNonBlocking));
  std::vector<float> Host(NX, 1.0f);
  auto WallMs = [&](bool Kernel, int Copy) {
    std::vector<double> Ms;
    for (int R = 0; R < 5; ++R) {
      CHECK(cudaStreamSynchronize(S));
      CHECK(cudaStreamSynchronize(C));
      auto T0 = std::chrono::steady_clock::now();
      if (Kernel)
        spin<<<1, Lanes, 0, S>>>(Sink, 0, Steps * 4);
      if (Copy == 1)
        CHECK(cudaMemcpyAsync(X, Host.data(), NX * 4, cudaMemcpyHostToDevice, C));
      if (Copy == 2)
        CHECK(cudaMemcpyAsync(Host.data(), X, NX * 4, cudaMemcpyDeviceToHost, C));
      CHECK(cudaStreamSynchronize(S));
      CHECK(cudaStreamSynchronize(C));
      auto T1 = std::chrono::steady_clock::now();
      Ms.push_back(std::chrono::duration<double, std::milli>(T1 - T0).count());
    }
    std::sort(Ms.begin(), Ms.end());
    return Stat{Ms[Ms.size() / 2], Ms.front(), Ms.back()};
  };
  print("timeline_kernel_ms", WallMs(true, 0));
  print("timeline_h2d_ms", WallMs(false, 1));
  print("timeline_both_h2d_ms", WallMs(true, 1));
  print("timeline_d2h_ms", WallMs(false, 2));
  print("timeline_both_d2h_ms", WallMs(true, 2));
  // The same 256 MiB from and to cudaMallocHost memory.
  float *Pinned = nullptr;
  CHECK(cudaMallocHost(&Pinned, NX * 4));
  auto PinnedMs = [&](bool ToDevice) {
    std::vector<double> Ms;
    for (int R = 0; R < 5; ++R) {
      CHECK(cudaStreamSynchronize(C));
      auto T0 = std::chrono::steady_clock::now();
      if (ToDevice)
        CHECK(cudaMemcpyAsync(X, Pinned, NX * 4, cudaMemcpyHostToDevice, C));
      else
        CHECK(cudaMemcpyAsync(Pinned, X, NX * 4, cudaMemcpyDeviceToHost, C));
      CHECK(cudaStreamSynchronize(C));
      auto T1 = std::chrono::steady_clock::now();
      Ms.push_back(std::chrono::duration<double, std::milli>(T1 - T0).count());
    }
    std::sort(Ms.begin(), Ms.end());
    return Stat{Ms[Ms.size() / 2], Ms.front(), Ms.back()};
  };
  print("pinned_h2d_ms", PinnedMs(true));
  print("pinned_d2h_ms", PinnedMs(false));
  CHECK(cudaFreeHost(Pinned));
  return 0;
}
