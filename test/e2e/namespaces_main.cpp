// End-to-end: kernels and fields in namespaces.
#include "Check.h"
#include "namespaces.qd.h"

int main() {
  qd::init();
  Check Ok;
  namespaces::position.fill(1.0f);
  namespaces::step(4.0f, 200);
  Ok.all("namespaced kernel and field", namespaces::position.to_vector(),
         [](size_t i) { return i < 200 ? 1.0f + 2.0f + float(i) : 1.0f; });
  namespaces::mark(3);
  Ok.all("kernel in an unnamed namespace", namespaces::hidden.to_vector(),
         [](size_t i) { return int(3 * i); });
  return Ok.finish();
}
