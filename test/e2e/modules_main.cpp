// End-to-end: two .qd objects with clashing names link into one program.
#include "Check.h"
#include "modules_a.qd.h"
#include "modules_b.qd.h"

int main() {
  qd::init();
  Check Ok;
  modules_a::run(1.0f);
  modules_b::run(1.0f);
  Ok.all("module a", modules_a::a.to_vector(),
         [](size_t i) { return 2.0f + float(i); });
  Ok.all("module b", modules_b::a.to_vector(),
         [](size_t i) { return 3.0f - float(i); });
  return Ok.finish();
}
