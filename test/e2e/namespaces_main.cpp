// End-to-end: kernels and fields in namespaces. The header mirrors them:
// physics::step is namespaces::physics::step.
#include "Check.h"
#include "namespaces.qd.h"

int main() {
  qd::init();
  Check Ok;
  namespaces::physics::position.fill(1.0f);
  namespaces::physics::step(4.0f, 200);
  Ok.all("namespaced kernel and field",
         namespaces::physics::position.to_vector(),
         [](size_t i) { return i < 200 ? 1.0f + 2.0f + float(i) : 1.0f; });
  namespaces::mark(3);
  Ok.all("kernel in an unnamed namespace", namespaces::hidden.to_vector(),
         [](size_t i) { return int(3 * i); });
  namespaces::chemistry::level.fill(0.0f);
  namespaces::chemistry::step(7.0f);
  Ok.all("same-named kernel in another namespace",
         namespaces::chemistry::level.to_vector(), [](size_t) { return 7.0f; });
  return Ok.finish();
}
