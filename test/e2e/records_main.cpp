// Four modules, built with --debug -DNDEBUG, -DNDEBUG, -ffast-math and
// nothing, linked in one order or another: each module's failures are
// reported at its own call's synchronization, never at another module's,
// and each keeps its own copy of an inline function of the user's header.
#include "Check.h"
#include "records_debug.qd.h"
#include "records_fastmath.qd.h"
#include "records_ndebug.qd.h"
#include "records_plain.qd.h"

#include <string>

namespace {
/// Runs F, then qd::sync(); the error's text, or "" when none.
template <typename F> std::string syncedErrorOf(F &&Run) {
  return errorOf([&] {
    Run();
    qd::sync();
  });
}
} // namespace

int main() {
  qd::init();
  Check C;
  // Nothing fails: no error anywhere; each module's own flavor.
  C.that("debug clean", syncedErrorOf([] { records_debug::run(-1, -1); }) == "");
  C.that("ndebug clean", syncedErrorOf([] { records_ndebug::run(-1, -1); }) == "");
  C.that("fastmath clean", syncedErrorOf([] { records_fastmath::run(-1, -1); }) == "");
  C.that("plain clean", syncedErrorOf([] { records_plain::run(-1, -1); }) == "");
  // --debug enables assert even with NDEBUG; -ffast-math defines
  // __FAST_MATH__.
  C.all("debug flavor", records_debug::out.to_vector(), [](size_t) { return 2; });
  C.all("ndebug flavor", records_ndebug::out.to_vector(), [](size_t) { return 1; });
  C.all("fastmath flavor", records_fastmath::out.to_vector(), [](size_t) { return 4; });
  C.all("plain flavor", records_plain::out.to_vector(), [](size_t) { return 0; });

  // A QD_ASSERT fails in one module: that call reports it, naming it; the
  // next call of another module does not.
  std::string E = syncedErrorOf([] { records_plain::run(2, -1); });
  C.that("plain QD_ASSERT reported", has(E, "records_plain"));
  C.that("then debug clean", syncedErrorOf([] { records_debug::run(-1, -1); }) == "");
  E = syncedErrorOf([] { records_fastmath::run(1, -1); });
  C.that("fastmath QD_ASSERT reported", has(E, "records_fastmath"));
  C.that("then plain clean", syncedErrorOf([] { records_plain::run(-1, -1); }) == "");
  E = syncedErrorOf([] { records_debug::run(3, -1); });
  C.that("debug QD_ASSERT reported", has(E, "records_debug"));
  C.that("then ndebug clean", syncedErrorOf([] { records_ndebug::run(-1, -1); }) == "");
  E = syncedErrorOf([] { records_ndebug::run(0, -1); });
  C.that("ndebug QD_ASSERT reported", has(E, "records_ndebug"));
  C.that("then fastmath clean", syncedErrorOf([] { records_fastmath::run(-1, -1); }) == "");

  // assert: on in --debug (despite NDEBUG) and plain; off with NDEBUG.
  E = syncedErrorOf([] { records_debug::run(-1, 1); });
  C.that("debug assert reported", has(E, "assert") && has(E, "records_debug.qd"));
  C.that("ndebug assert off", syncedErrorOf([] { records_ndebug::run(-1, 1); }) == "");
  E = syncedErrorOf([] { records_plain::run(-1, 2); });
  C.that("plain assert reported", has(E, "assert") && has(E, "records_plain.qd"));

  // --debug checks indices of its own module only.
  E = syncedErrorOf([] { records_debug::index(9); });
  C.that("debug index check reported", has(E, "out of bounds"));
  C.that("then plain clean", syncedErrorOf([] { records_plain::run(-1, -1); }) == "");
  return C.finish();
}
