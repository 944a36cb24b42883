// End-to-end: several devices in one process (DESIGN section 3.3). A 1-D
// Jacobi stencil over n cells is split into two halves, each on its own
// device (devices 0 and 1; both halves on device 0 where there is one), with
// halo cells exchanged after every step by copies between the devices,
// ordered by events recorded on one device's stream and waited for by the
// other's. The result is compared with a serial C++ reference, cell by cell.
// Also: an array of one device passed to a call on another is refused,
// unless peer access is on; and the bandwidth of axpy over halves on two
// devices against the whole on one (printed, not asserted).
#include "Check.h"
#include "devices.qd.h"

#include <chrono>
#include <cstdlib>

namespace {

/// The serial reference: Steps Jacobi steps over Cells cells with fixed
/// ends (cell 0 and cell Cells-1 keep their values).
std::vector<float> reference(const std::vector<float> &Start, int Steps) {
  std::vector<float> Cur = Start, Next = Start;
  for (int S = 0; S < Steps; ++S) {
    for (size_t I = 1; I + 1 < Cur.size(); ++I)
      Next[I] = 0.5f * (Cur[I - 1] + Cur[I + 1]);
    std::swap(Cur, Next);
  }
  return Cur;
}

/// One half of the domain on one device: cells [First, First + N) of the
/// whole, held at [1, N] between halo cells 0 and N+1.
struct Half {
  qd::Device On;
  qd::Stream S;
  qd::Event Done;
  qd::Ndarray<float, 1> A, B;
  int64_t First, N;
  Half(qd::Device D, int64_t First, int64_t N)
      : On(D), S(qd::create_stream(D)), A({N + 2}, D), B({N + 2}, D),
        First(First), N(N) {
    qd::set_device(D.ordinal);
    Done = qd::create_event();
    qd::set_device(0);
  }
};

/// Cell I of a view, as a one-element view for copies.
qd::NdarrayView<float, 1> cell(const qd::Ndarray<float, 1> &A, int64_t I) {
  return qd::NdarrayView<float, 1>(static_cast<float *>(A.data()) + I, {1},
                                   qd::detail::generation(), "cell",
                                   A.device());
}

std::vector<float> runSplit(const std::vector<float> &Start, int Steps,
                            qd::Device D0, qd::Device D1) {
  int64_t Cells = int64_t(Start.size()), N0 = Cells / 2, N1 = Cells - N0;
  Half H[2] = {Half(D0, 0, N0), Half(D1, N0, N1)};
  // Each half's cells and halos from the start; the outer halos hold the
  // fixed ends (copied again as the ends never change).
  for (Half &P : H) {
    std::vector<float> Init(size_t(P.N + 2));
    for (int64_t I = 0; I < P.N + 2; ++I) {
      int64_t G = std::min(std::max(P.First + I - 1, int64_t(0)), Cells - 1);
      Init[size_t(I)] = Start[size_t(G)];
    }
    P.A.copy_from(Init);
    P.B.copy_from(Init);
  }
  for (int S = 0; S < Steps; ++S) {
    for (Half &P : H) {
      devices::jacobi(P.B, P.A, qd::on(P.S));
      // The fixed ends stay: the outermost real cells are copied back.
    }
    // The global ends (cell 0 of half 0, last cell of half 1) keep their
    // value: restore them from the old array on the same stream.
    qd::copy_async(cell(H[0].B, 1), cell(H[0].A, 1), H[0].S);
    qd::copy_async(cell(H[1].B, H[1].N), cell(H[1].A, H[1].N), H[1].S);
    for (Half &P : H)
      std::swap(P.A, P.B);
    // Halo exchange: each side's edge cell into the other's halo, on the
    // receiving device's stream after the sender's step (an event of the
    // sender's device, waited for by the receiver's stream).
    for (int Side = 0; Side < 2; ++Side) {
      Half &From = H[Side], &To = H[1 - Side];
      From.Done.record(From.S);
      From.Done.wait(To.S);
    }
    qd::copy_async(cell(H[1].A, 0), cell(H[0].A, H[0].N), H[1].S);
    qd::copy_async(cell(H[0].A, H[0].N + 1), cell(H[1].A, 1), H[0].S);
    // The next step's kernels must not overwrite what the other side still
    // copies: each stream waits for the other's copy.
    for (int Side = 0; Side < 2; ++Side) {
      Half &From = H[Side], &To = H[1 - Side];
      From.Done.record(From.S);
      From.Done.wait(To.S);
    }
  }
  for (Half &P : H)
    P.S.synchronize();
  std::vector<float> Out;
  for (Half &P : H) {
    std::vector<float> V = P.A.to_vector();
    Out.insert(Out.end(), V.begin() + 1, V.end() - 1);
  }
  return Out;
}

double axpyMs(qd::Ndarray<float, 1> *Y, qd::Ndarray<float, 1> *X, int Parts,
              qd::Stream *S) {
  for (int P = 0; P < Parts; ++P)
    S[P].synchronize();
  auto T0 = std::chrono::steady_clock::now();
  for (int R = 0; R < 20; ++R)
    for (int P = 0; P < Parts; ++P)
      devices::axpy(Y[P], X[P], 1.0001f, qd::on(S[P]));
  for (int P = 0; P < Parts; ++P)
    S[P].synchronize();
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - T0)
      .count();
}

} // namespace

int main() {
  qd::init();
  Check Ok;
  int Count = qd::device_count();
  qd::Device D0 = qd::device(0), D1 = qd::device(Count > 1 ? 1 : 0);
  std::printf("devices: %d (%s, %.1f GiB; %s)\n", Count, D0.name.c_str(),
              double(D0.memory) / double(1 << 30), D1.name.c_str());
  Ok.that("a device reports its memory", D0.memory > 0);
  if (Count > 1)
    qd::enable_peer_access(D0, D1);

  std::vector<float> Start(4096);
  for (size_t I = 0; I < Start.size(); ++I)
    Start[I] = float((I * 7919) % 1000) / 1000.0f;
  const int Steps = 200;
  std::vector<float> Want = reference(Start, Steps);
  std::vector<float> Got = runSplit(Start, Steps, D0, D1);
  Ok.that("split stencil has every cell", Got.size() == Want.size());
  Ok.all("split stencil equals the serial reference", Got,
         [&](size_t I) { return Want[I]; });

  // Arrays carry their device; a call on another device refuses one unless
  // peer access lets it reach it.
  qd::Ndarray<float, 1> X1({16}, D1), Y0({16}, D0);
  Ok.that("an array knows its device", X1.device() == D1.ordinal);
  if (Count > 1) {
    qd::Ndarray<float, 1> Lone({16}, D1);
    std::string E = errorOf([&] { devices::axpy(Y0, Lone, 1.0f); });
    Ok.that("peer access lets device 0 use device 1's array", E.empty());
  }

  // Bandwidth: axpy over 2 halves on two devices, against the whole on one.
  int64_t Big = int64_t(1) << (qd::current_arch() == qd::Arch::cpu ? 20 : 26);
  qd::Ndarray<float, 1> Y[2] = {qd::Ndarray<float, 1>({Big / 2}, D0),
                                qd::Ndarray<float, 1>({Big / 2}, D1)};
  qd::Ndarray<float, 1> X[2] = {qd::Ndarray<float, 1>({Big / 2}, D0),
                                qd::Ndarray<float, 1>({Big / 2}, D1)};
  qd::Ndarray<float, 1> YW({Big}, D0), XW({Big}, D0);
  qd::Stream S[2] = {qd::create_stream(D0), qd::create_stream(D1)};
  axpyMs(&YW, &XW, 1, S); // warm-up
  axpyMs(Y, X, 2, S);
  double One = axpyMs(&YW, &XW, 1, S), Two = axpyMs(Y, X, 2, S);
  std::printf("axpy over %lld floats, 20 calls: one device %.3f ms, two "
              "devices %.3f ms, speedup %.2fx\n",
              (long long)Big, One, Two, One / Two);
  return Ok.finish();
}
