// The CUDA side of the kernel suite (kernels.qd), the same algorithms as
// CUDA programmers write them: 2-D blocks of 32x8 threads (3-D for the 3-D
// convolution), int indices, one thread per output, running sums in
// registers. Built by utils/bench-gpu.sh with nvcc -O3; prints what
// kernels_qdc.cpp prints.
#include <cuda_runtime.h>

#include "Stat.h"
#include "kernels_data.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace kernels_data;
using namespace bench_stat;

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t r = (x);                                                       \
    if (r != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s (line %d)\n", #x,                    \
                   cudaGetErrorString(r), __LINE__);                           \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void gemm(float *c, const float *a, const float *b, int n,
                     float alpha, float beta) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
      acc += a[i * n + k] * b[k * n + j];
    c[i * n + j] = alpha * acc + beta * c[i * n + j];
  }
}

__global__ void syr2k(float *c, const float *a, const float *b, int n,
                      float alpha, float beta) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
      acc += a[i * n + k] * b[j * n + k] + b[i * n + k] * a[j * n + k];
    c[i * n + j] = alpha * acc + beta * c[i * n + j];
  }
}

__global__ void conv2d(float *out, const float *in, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    out[i * n + j] =
        0.2f * in[(i - 1) * n + j - 1] + 0.5f * in[(i - 1) * n + j] -
        0.8f * in[(i - 1) * n + j + 1] - 0.3f * in[i * n + j - 1] +
        0.6f * in[i * n + j] - 0.9f * in[i * n + j + 1] +
        0.4f * in[(i + 1) * n + j - 1] + 0.7f * in[(i + 1) * n + j] +
        0.1f * in[(i + 1) * n + j + 1];
}

__global__ void conv3d(float *out, const float *in, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int i = blockIdx.z;
  auto at = [&](int a, int b, int c) { return in[(a * n + b) * n + c]; };
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1 && k >= 1 && k < n - 1)
    out[(i * n + j) * n + k] =
        2.0f * at(i - 1, j - 1, k - 1) + 4.0f * at(i + 1, j - 1, k - 1) +
        5.0f * at(i - 1, j - 1, k - 1) + 7.0f * at(i + 1, j - 1, k - 1) -
        8.0f * at(i - 1, j - 1, k - 1) + 10.0f * at(i + 1, j - 1, k - 1) -
        3.0f * at(i, j - 1, k) + 6.0f * at(i, j, k) - 9.0f * at(i, j + 1, k) +
        2.0f * at(i - 1, j - 1, k + 1) + 4.0f * at(i + 1, j - 1, k + 1);
}

__global__ void fdtd_ey(float *ey, const float *hz, int n, float t) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n)
    ey[i * n + j] =
        i == 0 ? t
               : ey[i * n + j] - 0.5f * (hz[i * n + j] - hz[(i - 1) * n + j]);
}
__global__ void fdtd_ex(float *ex, const float *hz, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j >= 1 && j < n)
    ex[i * n + j] = ex[i * n + j] - 0.5f * (hz[i * n + j] - hz[i * n + j - 1]);
}
__global__ void fdtd_hz(float *hz, const float *ex, const float *ey, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n - 1 && j < n - 1)
    hz[i * n + j] =
        hz[i * n + j] - 0.7f * (ex[i * n + j + 1] - ex[i * n + j] +
                                ey[(i + 1) * n + j] - ey[i * n + j]);
}

__global__ void jacobi_b(const float *a, float *b, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] +
                           a[(i + 1) * n + j] + a[(i - 1) * n + j]);
}
__global__ void jacobi_a(float *a, const float *b, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    a[i * n + j] = b[i * n + j];
}

__global__ void mvt1(float *x1, const float *a, const float *y1, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float acc = x1[i];
    for (int j = 0; j < n; ++j)
      acc += a[i * n + j] * y1[j];
    x1[i] = acc;
  }
}
__global__ void mvt2(float *x2, const float *a, const float *y2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float acc = x2[i];
    for (int j = 0; j < n; ++j)
      acc += a[j * n + i] * y2[j];
    x2[i] = acc;
  }
}

__global__ void lu_scale(float *a, int n, int k) {
  int j = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n)
    a[k * n + j] = a[k * n + j] / a[k * n + k];
}
__global__ void lu_update(float *a, int n, int k) {
  int j = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  int i = k + 1 + blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n)
    a[i * n + j] = a[i * n + j] - a[i * n + k] * a[k * n + j];
}

namespace {

cudaStream_t S;

/// A device copy of V.
float *upload(const std::vector<float> &V) {
  float *P = nullptr;
  CHECK(cudaMalloc(&P, V.size() * sizeof(float)));
  CHECK(cudaMemcpy(P, V.data(), V.size() * sizeof(float),
                   cudaMemcpyHostToDevice));
  return P;
}
void reset(float *P, const std::vector<float> &V) {
  CHECK(cudaMemcpy(P, V.data(), V.size() * sizeof(float),
                   cudaMemcpyHostToDevice));
}
std::vector<float> download(const float *P, size_t N) {
  std::vector<float> V(N);
  CHECK(cudaMemcpy(V.data(), P, N * sizeof(float), cudaMemcpyDeviceToHost));
  return V;
}

void measure(const char *Name, const std::function<void()> &Reset,
             const std::function<void()> &Run) {
  cudaEvent_t A, B;
  CHECK(cudaEventCreate(&A));
  CHECK(cudaEventCreate(&B));
  std::vector<double> Ms;
  for (int R = 0; R <= Runs; ++R) {
    Reset();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(A, S));
    Run();
    CHECK(cudaEventRecord(B, S));
    CHECK(cudaEventSynchronize(B));
    CHECK(cudaGetLastError());
    float T = 0;
    CHECK(cudaEventElapsedTime(&T, A, B));
    if (R)
      Ms.push_back(T);
  }
  std::string Key = std::string("kern_") + Name + "_ms";
  print(Key.c_str(), stat(Ms));
}

/// Blocks of Per threads covering N, at least one.
unsigned blocks(int64_t N, int64_t Per) {
  return unsigned(N > 0 ? (N + Per - 1) / Per : 1);
}
dim3 grid2(int64_t Rows, int64_t Cols) {
  return dim3(blocks(Cols, 32), blocks(Rows, 8));
}
const dim3 Block2(32, 8);

} // namespace

int main() {
  CHECK(cudaStreamCreate(&S));
  // C = alpha op(A, B) + beta C, from the same A, B and C each run.
  auto Product = [&](const char *Name, int n, auto Kernel) {
    float *A = upload(matrix(n, n, 1)), *B = upload(matrix(n, n, 2));
    std::vector<float> C0 = matrix(n, n, 3);
    float *C = upload(C0);
    measure(
        Name, [&] { reset(C, C0); },
        [&] { Kernel<<<grid2(n, n), Block2, 0, S>>>(C, A, B, n, 1.5f, 1.2f); });
    printSum(Name, download(C, C0.size()));
  };
  Product("gemm", int(GemmN), gemm);
  Product("syr2k", int(Syr2kN), syr2k);
  {
    int n = int(Conv2dN);
    float *In = upload(matrix(n, n, 1));
    std::vector<float> Zero(size_t(n) * n, 0.0f);
    float *Out = upload(Zero);
    measure(
        "conv2d", [&] { reset(Out, Zero); },
        [&] { conv2d<<<grid2(n, n), Block2, 0, S>>>(Out, In, n); });
    printSum("conv2d", download(Out, Zero.size()));
  }
  {
    int n = int(Conv3dN);
    float *In = upload(matrix(int64_t(n) * n, n, 1));
    std::vector<float> Zero(size_t(n) * n * n, 0.0f);
    float *Out = upload(Zero);
    dim3 Grid(blocks(n, 32), blocks(n, 8), unsigned(n));
    measure(
        "conv3d", [&] { reset(Out, Zero); },
        [&] { conv3d<<<Grid, Block2, 0, S>>>(Out, In, n); });
    printSum("conv3d", download(Out, Zero.size()));
  }
  {
    int n = int(FdtdN);
    std::vector<float> Ex0 = matrix(n, n, 1), Ey0 = matrix(n, n, 2),
                       Hz0 = matrix(n, n, 3);
    float *Ex = upload(Ex0), *Ey = upload(Ey0), *Hz = upload(Hz0);
    measure(
        "fdtd2d",
        [&] {
          reset(Ex, Ex0);
          reset(Ey, Ey0);
          reset(Hz, Hz0);
        },
        [&] {
          for (int T = 0; T < FdtdSteps; ++T) {
            fdtd_ey<<<grid2(n, n), Block2, 0, S>>>(Ey, Hz, n, float(T));
            fdtd_ex<<<grid2(n, n), Block2, 0, S>>>(Ex, Hz, n);
            fdtd_hz<<<grid2(n, n), Block2, 0, S>>>(Hz, Ex, Ey, n);
          }
        });
    printSum("fdtd2d", download(Hz, Hz0.size()));
  }
  {
    int n = int(JacobiN);
    std::vector<float> A0 = matrix(n, n, 1), B0 = matrix(n, n, 2);
    float *A = upload(A0), *B = upload(B0);
    measure(
        "jacobi2d",
        [&] {
          reset(A, A0);
          reset(B, B0);
        },
        [&] {
          for (int T = 0; T < JacobiSteps; ++T) {
            jacobi_b<<<grid2(n, n), Block2, 0, S>>>(A, B, n);
            jacobi_a<<<grid2(n, n), Block2, 0, S>>>(A, B, n);
          }
        });
    printSum("jacobi2d", download(A, A0.size()));
  }
  {
    int n = int(MvtN);
    float *A = upload(matrix(n, n, 1)), *Y1 = upload(matrix(1, n, 2)),
          *Y2 = upload(matrix(1, n, 3));
    std::vector<float> X10 = matrix(1, n, 4), X20 = matrix(1, n, 5);
    float *X1 = upload(X10), *X2 = upload(X20);
    measure(
        "mvt",
        [&] {
          reset(X1, X10);
          reset(X2, X20);
        },
        [&] {
          mvt1<<<blocks(n, 256), 256, 0, S>>>(X1, A, Y1, n);
          mvt2<<<blocks(n, 256), 256, 0, S>>>(X2, A, Y2, n);
        });
    std::vector<float> Both = download(X1, n), Second = download(X2, n);
    Both.insert(Both.end(), Second.begin(), Second.end());
    printSum("mvt", Both);
  }
  {
    int n = int(LuN);
    std::vector<float> A0 = luMatrix(n);
    float *A = upload(A0);
    measure(
        "lu", [&] { reset(A, A0); },
        [&] {
          for (int k = 0; k < n; ++k) {
            int Left = n - k - 1;
            lu_scale<<<blocks(Left, 256), 256, 0, S>>>(A, n, k);
            lu_update<<<grid2(Left, Left), Block2, 0, S>>>(A, n, k);
          }
        });
    printSum("lu", download(A, A0.size()));
  }
}
