//===- peer_qdc.cpp - Copies between two GPUs through qdc -----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// GB/s of qd::copy_async from device 0's array into device 1's, with peer
// access on, on a stream of device 1: the median of 9 rounds of 10 copies of
// 256 MiB. peer_baseline.cu measures cudaMemcpyPeerAsync the same way.
//
//===----------------------------------------------------------------------===//

#include <qd/runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

int main() {
  qd::init(qd::Arch::cuda);
  if (qd::device_count() < 2) {
    std::printf("peer copies need two GPUs; this machine has %d\n",
                qd::device_count());
    return 1;
  }
  qd::Device D0 = qd::device(0), D1 = qd::device(1);
  qd::enable_peer_access(D0, D1);
  const int64_t N = int64_t(64) << 20; // floats: 256 MiB
  qd::Ndarray<float, 1> A({N}, D0), B({N}, D1);
  qd::Stream S = qd::create_stream(D1);
  qd::copy_async(B, A, S); // warm-up
  S.synchronize();
  std::vector<double> Rates;
  for (int R = 0; R < 9; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    for (int I = 0; I < 10; ++I)
      qd::copy_async(B, A, S);
    S.synchronize();
    double S_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
            .count();
    Rates.push_back(10.0 * double(N) * sizeof(float) / S_ / 1e9);
  }
  std::sort(Rates.begin(), Rates.end());
  std::printf("peer_copy_qdc_gbs %.1f\n", Rates[Rates.size() / 2]);
}
