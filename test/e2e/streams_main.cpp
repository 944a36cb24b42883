// End-to-end: stream_parallel kernels, explicit streams and events,
// launches from several streams, results checked element by element.
#include "Check.h"
#include "streams.qd.h"

#include <cmath>

int main() {
  qd::init();
  Check Ok;
  constexpr int N = 1 << 16;

  // 2 groups, several loops per group, then a kernel that reads both.
  streams::two_groups(3.0f, 5.0f);
  streams::combine();
  Ok.all("2 groups: a", streams::a.to_vector(), [](size_t) { return 4.0f; });
  Ok.all("2 groups: b", streams::b.to_vector(), [](size_t) { return 9.0f; });
  Ok.all("join before combine", streams::c.to_vector(),
         [](size_t) { return 13.0f; });

  // 3 groups on an explicit stream, with an ndarray argument.
  qd::Stream S = qd::create_stream();
  qd::Ndarray<float, 1> X({N});
  std::vector<float> Xs(N);
  for (int i = 0; i < N; ++i)
    Xs[i] = float(i % 100);
  X.copy_from(Xs);
  streams::three_groups(X, qd::on(S));
  S.synchronize();
  Ok.all("3 groups: a", streams::a.to_vector(),
         [&](size_t i) { return Xs[i] + 1.0f; });
  Ok.all("3 groups: b", streams::b.to_vector(),
         [&](size_t i) { return Xs[i] * 2.0f; });
  Ok.all("3 groups: c", streams::c.to_vector(),
         [&](size_t i) { return (Xs[i] - 3.0f) * (Xs[i] - 3.0f); });

  // 8 groups.
  streams::eight_groups(10.0f);
  qd::sync();
  Ok.all("8 groups", streams::rows.to_vector(), [](size_t k) {
    int g = int(k / N);
    return g < 7 ? 10.0f + g : 2.0f * 17.0f;
  });

  // Events across streams: S2 waits for S1's work on the device.
  qd::Stream S1 = qd::create_stream(), S2 = qd::create_stream();
  qd::Event E = qd::create_event();
  qd::Ndarray<float, 1> P({N}), Y({N}), Z({N});
  streams::produce(P, 2.0f, qd::on(S1));
  E.record(S1);
  E.wait(S2);
  // A stream-parallel kernel right after its input's producer on S1, and
  // readers of the same input on S2 after the event.
  streams::consume_parallel(P, Y, Z, qd::on(S1));
  qd::Ndarray<float, 1> Y2({N});
  Y2.fill(1.0f);
  streams::axpy(Y2, P, 1.0f, qd::on(S2));
  qd::Event Done = qd::create_event();
  Done.record(S1);
  Done.wait(); // the default stream waits for S1
  qd::sync();
  S2.synchronize();
  auto Pv = [](size_t i) { return 2.0f + float(i % 7); };
  Ok.all("producer then stream_parallel consumer: y", Y.to_vector(),
         [&](size_t i) { return Pv(i) * 2.0f; });
  Ok.all("producer then stream_parallel consumer: z", Z.to_vector(),
         [&](size_t i) { return Pv(i) + 5.0f; });
  Ok.all("event wait across streams", Y2.to_vector(),
         [&](size_t i) { return 1.0f + Pv(i); });

  // A QD_GRAPH kernel called with new scalars and arrays of one size (its
  // graph replays with them), then with a larger array (recorded again).
  {
    qd::Ndarray<float, 1> X1({1000}), X2({1000}), X3({5000});
    bool Replays = true;
    for (int Call = 0; Call < 3; ++Call) {
      qd::Ndarray<float, 1> &X = Call == 1 ? X2 : X1;
      streams::graph_step(X, float(10 * Call), float(Call));
      qd::sync();
      std::vector<float> V = X.to_vector();
      Replays = Replays && V[5] == float(10 * Call + 5) &&
                streams::d.to_vector()[100] == float(Call);
    }
    streams::graph_step(X3, 1.0f, 7.0f);
    qd::sync();
    Ok.that("a QD_GRAPH kernel replays with each call's arguments", Replays);
    Ok.that("a QD_GRAPH kernel records again for another geometry",
            X3.to_vector()[4999] == 5000.0f && streams::d.to_vector()[0] == 7.0f);
  }

  // A captured graph: a fill, a copy and a two-group kernel recorded once
  // (nothing runs), then replayed.
  {
    qd::Stream G1 = qd::create_stream();
    streams::a.fill(-1.0f);
    streams::c.fill(0.0f);
    qd::Graph G = qd::capture(G1, [&] {
      streams::d.fill_async(3.0f, G1);
      streams::two_groups(5.0f, 6.0f, qd::on(G1));
      qd::copy_async(streams::c, streams::b, G1);
    });
    G1.synchronize();
    Ok.that("capturing runs nothing", streams::a.to_vector()[7] == -1.0f &&
                                          streams::c.to_vector()[7] == 0.0f);
    for (int Round = 0; Round < 3; ++Round)
      G.launch(G1);
    G1.synchronize();
    Ok.that("a replayed graph does the recorded work",
            streams::a.to_vector()[7] == 6.0f &&
                streams::c.to_vector()[9] == 11.0f &&
                streams::d.to_vector()[3] == 3.0f);
    G.destroy();
    bool Refused = false;
    try {
      G.launch(G1);
    } catch (const qd::Error &) {
      Refused = true;
    }
    Ok.that("a destroyed graph is refused", Refused);
    // Waiting on the host inside the captured function is refused on every
    // backend, by the runtime (no driver call fails): at the capture on
    // GPUs, at the replay on the CPU.
    std::string Why;
    try {
      qd::Graph W =
          qd::capture(G1, [&] { (void)streams::first_value(Y, qd::on(G1)); });
      W.launch(G1);
    } catch (const qd::Error &Err) {
      Why = Err.what();
    }
    G1.synchronize();
    Ok.that("a captured kernel that returns a value is refused",
            Why.find("a kernel that returns a value: waits on the host "
                     "inside a function given to qd::capture") == 0);
    Ok.that("the stream works after a refused capture",
            streams::first_value(Y, qd::on(G1)) == Y.to_vector()[0]);
  }

  // Rule 6 at launch: group 1 reads x while group 2 writes z; two views of
  // one buffer passed as both are refused before anything runs.
  {
    std::string Race;
    try {
      streams::consume_parallel(Y, P.view(), Y.view());
    } catch (const qd::Error &Err) {
      Race = Err.what();
    }
    Ok.that("views sharing memory across groups are refused at launch",
            Race == "kernel 'consume_parallel': parameters 'x' (group 1, "
                    "read) and 'z' (group 2, written) share memory, and "
                    "stream-parallel groups would race on it");
    Ok.that("the same buffer in a group that only reads it is fine", [&] {
      try {
        streams::consume_parallel(P, Y, Z);
        qd::sync();
        return true;
      } catch (const qd::Error &) {
        return false;
      }
    }());
  }

  // One kernel on two streams with different arguments, many times.
  qd::Ndarray<float, 1> U({N}), W({N}), Ones({N});
  U.fill(0.0f);
  W.fill(0.0f);
  Ones.fill(1.0f);
  for (int r = 0; r < 200; ++r) {
    streams::axpy(U, Ones, 1.0f, qd::on(S1));
    streams::axpy(W, Ones, 2.0f, qd::on(S2));
  }
  S1.synchronize();
  S2.synchronize();
  Ok.all("same kernel on two streams: U", U.to_vector(),
         [](size_t) { return 200.0f; });
  Ok.all("same kernel on two streams: W", W.to_vector(),
         [](size_t) { return 400.0f; });

  // Destroying a stream while its work runs: destroy waits for it.
  qd::Ndarray<float, 1> Q({N});
  Q.fill(0.0f);
  {
    qd::Stream T = qd::create_stream();
    streams::slow(Q, 2000, qd::on(T));
    T.destroy();
    Ok.that("destroyed stream handle is 0", T.handle() == nullptr);
  }
  float Expect = 0.0f;
  for (int r = 0; r < 2000; ++r)
    Expect = Expect * 0.999f + 1.0f;
  Ok.all(
      "work of a destroyed stream completed", Q.to_vector(),
      [&](size_t) { return Expect; }, 1e-5);

  // The pool reused over many calls, alternating launch streams; each launch
  // is ordered after the previous one by an event.
  qd::Event Chain = qd::create_event();
  for (int r = 0; r < 1000; ++r) {
    qd::Stream &Cur = r % 2 ? S1 : S2, &Next = r % 2 ? S2 : S1;
    streams::two_groups(float(r), 1.0f, qd::on(Cur));
    Chain.record(Cur);
    Chain.wait(Next);
  }
  S1.synchronize();
  S2.synchronize();
  streams::combine();
  qd::sync();
  Ok.all("after 1000 stream-parallel launches", streams::c.to_vector(),
         [](size_t) { return 999.0f + 1.0f + 1.0f; });
  return Ok.finish();
}
