// cudaMemcpyPeerAsync from GPU 0 to GPU 1 with peer access on, on a stream of
// GPU 1: GB/s, the median of 9 rounds of 10 copies of 256 MiB, as
// peer_qdc.cpp measures qd::copy_async.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

int main() {
  int Count = 0;
  cudaGetDeviceCount(&Count);
  if (Count < 2)
    return 1;
  const size_t Bytes = size_t(256) << 20;
  void *A = nullptr, *B = nullptr;
  cudaSetDevice(0);
  cudaDeviceEnablePeerAccess(1, 0);
  cudaMalloc(&A, Bytes);
  cudaSetDevice(1);
  cudaDeviceEnablePeerAccess(0, 0);
  cudaMalloc(&B, Bytes);
  cudaStream_t S;
  cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
  cudaMemcpyPeerAsync(B, 1, A, 0, Bytes, S);
  cudaStreamSynchronize(S);
  std::vector<double> Rates;
  for (int R = 0; R < 9; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    for (int I = 0; I < 10; ++I)
      cudaMemcpyPeerAsync(B, 1, A, 0, Bytes, S);
    cudaStreamSynchronize(S);
    double Sec =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
            .count();
    Rates.push_back(10.0 * double(Bytes) / Sec / 1e9);
  }
  std::sort(Rates.begin(), Rates.end());
  std::printf("peer_copy_cuda_gbs %.1f\n", Rates[Rates.size() / 2]);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
