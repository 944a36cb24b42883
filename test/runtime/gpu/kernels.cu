// Small kernels for libqdrt's GPU tests, compiled to PTX by clang-19 at
// build time (no CUDA headers, no code generator). Each follows qd/abi.h:
// the kernel's argument block by value (shared by all its tasks), then the
// iteration count, covered with a grid-stride loop. The argument layouts
// match test/runtime/CpuKernels.h.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
typedef unsigned long long u64;

static __device__ u64 first() {
  return (u64)__nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
         __nvvm_read_ptx_sreg_tid_x();
}
static __device__ u64 stride() {
  return (u64)__nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_ntid_x();
}

// Two groups: group 1 sets A = Va; group 2 sets B = Vb, then adds 1.
struct TwoGroupArgs {
  float *A;
  float *B;
  float Va, Vb;
};
extern "C" __global__ void setA(TwoGroupArgs p, u64 n) {
  for (u64 i = first(); i < n; i += stride())
    p.A[i] = p.Va;
}
extern "C" __global__ void setB(TwoGroupArgs p, u64 n) {
  for (u64 i = first(); i < n; i += stride())
    p.B[i] = p.Vb;
}
extern "C" __global__ void incB(TwoGroupArgs p, u64 n) {
  for (u64 i = first(); i < n; i += stride())
    p.B[i] += 1.0f;
}

struct CombineArgs {
  const float *A;
  const float *B;
  float *C;
};
extern "C" __global__ void combine(CombineArgs p, u64 n) {
  for (u64 i = first(); i < n; i += stride())
    p.C[i] = p.A[i] + p.B[i];
}

// One block spinning for Ms milliseconds, then marking its flag.
struct SpinArgs {
  int *Flags;
  float Ms;
};
static __device__ void spinFor(float Ms) {
  long long Start = __nvvm_read_ptx_sreg_globaltimer();
  long long Wait = (long long)(Ms * 1.0e6f);
  while (__nvvm_read_ptx_sreg_globaltimer() - Start < Wait) {
  }
}
extern "C" __global__ void spin0(SpinArgs p, u64) {
  spinFor(p.Ms);
  if (__nvvm_read_ptx_sreg_tid_x() == 0)
    p.Flags[0] = 1;
}
extern "C" __global__ void spin1(SpinArgs p, u64) {
  spinFor(p.Ms);
  if (__nvvm_read_ptx_sreg_tid_x() == 0)
    p.Flags[1] = 1;
}

// A device global (what a qd::field becomes) and a kernel without
// arguments: it takes only the iteration count.
__device__ int counter;
extern "C" __global__ void bump(u64 n) {
  for (u64 i = first(); i < n; i += stride())
    __nvvm_atom_add_gen_i(&counter, 1);
}
