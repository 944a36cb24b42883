// End-to-end: graph kernels with qd::graph::do_while loops, kernel
// scalars and return values, called again with new arguments; the same
// results on every backend (device-side loops on CUDA sm_90 and newer).
#include "Check.h"
#include "graphs.qd.h"

#include <cstdlib>
#include <utility>

int main() {
  qd::init();
  Check Ok;
  std::printf("qd::graph::do_while loops run on the %s\n",
              qd::graph_loops_on_device() ? "device" : "host");
  // utils/gpu-check-e2e.sh says when the GPU should run them itself.
  if (const char *E = std::getenv("QD_EXPECT_DEVICE_LOOPS"); E && *E)
    Ok.that("do_while loops run on the device", qd::graph_loops_on_device());

  // do_while with an ndarray flag: the body runs `count` times, the tasks
  // before and after the loop once; again with other arrays and counts.
  for (int32_t Count : {5, 1, 12}) {
    qd::Ndarray<int32_t, 0> Counter({}), Flag({});
    qd::Ndarray<int32_t, 1> Runs({8});
    Counter.fill(Count);
    Flag.fill(1);
    Runs.fill(0);
    graphs::count_down(Counter, Flag, Runs);
    std::vector<int32_t> R = Runs.to_vector();
    Ok.all("do_while runs its body count times", R,
           [&](size_t) { return Count; });
    Ok.that("the task after the loop ran once", Counter.to_vector()[0] == 100);
    Ok.that("the loop ends with the flag clear", Flag.to_vector()[0] == 0);
  }
  // A flag already clear still runs the body once (do ... while).
  {
    qd::Ndarray<int32_t, 0> Counter({}), Flag({});
    qd::Ndarray<int32_t, 1> Runs({2});
    Counter.fill(1);
    Flag.fill(0);
    Runs.fill(0);
    graphs::count_down(Counter, Flag, Runs);
    Ok.that("the body runs once before the first check",
            Runs.to_vector()[0] == 1 && Counter.to_vector()[0] == 100);
  }

  // do_while with a field flag and a kernel scalar across iterations:
  // sum(v) = N * 2^-k after k runs; below 1.0 first after log2(N) + 1.
  for (int Round = 0; Round < 2; ++Round) {
    graphs::v.fill(1.0f);
    graphs::again.fill(1);
    graphs::log.fill(-1);
    int32_t Runs = graphs::halve_until(1.0f);
    Ok.that("a field flag ends the loop at the right run", Runs == 13);
    std::vector<int32_t> Log = graphs::log.to_vector();
    Ok.all("each run saw the runs before it", Log,
           [](size_t i) { return i < 13 ? int32_t(i) : -1; });
    Ok.all("v halved 13 times", graphs::v.to_vector(),
           [](size_t) { return 1.0f / 8192.0f; });
  }
  graphs::v.fill(1.0f);
  graphs::again.fill(1);
  Ok.that("another limit, another count", graphs::halve_until(1024.0f) == 3);

  // Nested loops, twice each with other counts (the graph is replayed,
  // then recorded again for new scalars): the inner loop starts again in
  // each run of the outer body, even where its flag was left clear.
  for (auto [Outer, Inner] :
       {std::pair{3, 4}, std::pair{3, 4}, std::pair{2, 5}, std::pair{1, 1}}) {
    graphs::grid.fill(0);
    graphs::outer.fill(0);
    graphs::inner.fill(0);
    Ok.that("nested loops run the inner body outer x inner times",
            graphs::nested(Outer, Inner) == Outer * Inner);
    Ok.all("each inner run saw its outer and inner index",
           graphs::grid.to_vector(), [&](size_t J) {
             return int32_t(J / 8) < Outer && int32_t(J % 8) < Inner ? 1 : 0;
           });
    graphs::v.fill(0.0f);
    graphs::nested_big(Outer, Inner);
    Ok.all("nested loops around a large task", graphs::v.to_vector(),
           [&](size_t) { return float(Outer * Inner); });
  }
  Ok.that("an outer loop of the inner loop alone (9)",
          graphs::same_tasks(9) == 9);
  Ok.that("an outer loop of the inner loop alone (4)",
          graphs::same_tasks(4) == 6);

  // A graph kernel returning a value: replays with new arrays and scalars
  // and a new length (recorded again).
  for (int64_t Len : {1000, 1000, 3000}) {
    qd::Ndarray<float, 1> A({Len}), B({Len});
    A.fill(2.0f);
    B.fill(0.25f);
    float Scale = float(Len) / 1000.0f;
    float Got = graphs::dot(A, B, Scale);
    Ok.that("a graph kernel returns its value",
            Got == 0.5f * float(Len) * Scale);
  }
  return Ok.finish();
}
