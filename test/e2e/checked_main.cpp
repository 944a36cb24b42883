// End-to-end: qdc --debug turns an out-of-bounds index into a qd::Error at
// the next synchronization (at once for a kernel returning a value), naming
// the index and the shape; in-bounds work is unaffected and the runtime
// goes on.
#include "Check.h"
#include "checked.qd.h"

#include <string>

int main() {
  Check Ok;
  Ok.that("in bounds: no error", errorOf([] {
                                   checked::write_line(64);
                                   checked::write_grid(0);
                                   qd::sync();
                                 }).empty());
  std::string Line = errorOf([] {
    checked::write_line(65);
    qd::sync();
  });
  Ok.that("a field index out of bounds, at its line",
          has(Line, "index check failed in 'write_line' at ") &&
              has(Line, "checked.qd:9: index 64 is out of bounds of a field "
                        "of shape (64)"));
  std::string Grid = errorOf([] {
    checked::write_grid(1);
    qd::sync();
  });
  Ok.that("a 2-D field index out of bounds",
          has(Grid, "checked.qd:13: index 4 is out of bounds of a field of "
                    "shape (4, 4)"));
  std::string At = errorOf([] {
    checked::write_grid_at(1);
    qd::sync();
  });
  Ok.that("a vector index out of bounds, at its line",
          has(At, "checked.qd:24: index 4 is out of bounds of a field of "
                  "shape (4, 4)"));
  if (!has(At, "checked.qd:24:"))
    std::printf("  got: %s\n", At.c_str());
  static qd::Ndarray<float, 2> X({3, 5});
  X.copy_from(std::vector<float>(15, 1.0f));
  std::string Array = errorOf([] { checked::read_array(X, 3); });
  Ok.that("an ndarray index out of bounds, at the call",
          has(Array, "checked.qd:18: index 3 is out of bounds of an ndarray "
                     "of shape (3, 5)"));
  Ok.that("afterwards the runtime goes on",
          checked::read_array(X, 2) == 5.0f &&
              errorOf([] { qd::sync(); }).empty());
  return Ok.finish();
}
