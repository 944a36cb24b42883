// Runs breadth.qd's kernels and compares each result with serial C++.
#include "Check.h"
#include "breadth.qd.h"

#include <algorithm>
#include <string>
#include <vector>

int main() {
  qd::init();
  Check C;

  breadth::mixed_range(int32_t(3), int64_t(9));
  C.all("mixed_range", breadth::mixed.to_vector(),
        [](size_t I) { return I >= 4 && I < 9 ? int64_t(I) * 10 : 0; });

  std::vector<float> In(8);
  for (int I = 0; I < 8; ++I)
    In[I] = 0.5f * float(I);
  breadth::src.copy_from(In);
  breadth::const_field_read();
  C.all("const_field_read", breadth::dst.to_vector(),
        [&](size_t I) { return 2 * In[I] + 1; });

  breadth::flags.copy_from({false, true, false, false, true, false, false, false});
  breadth::set_flags(3);
  C.all("set_flags", breadth::flags.to_vector(), [](size_t I) {
    const bool Before[] = {false, true, false, false, true, false, false, false};
    return I % 3 == 0 && !Before[I];
  });
  breadth::linalg_more(2.5f);
  {
    const float S = 2.5f;
    const float Want[] = {0.5f - 20.0f - 100.0f,
                          std::max(1.0f, S) + std::max(-2.0f, S) + std::max(3.0f, S),
                          2.0f - 1.0f + 4.0f,
                          0.0f + 2.0f,
                          1.0f - 1.0f + 2.0f,
                          4 * S + 1.0f,
                          S * 9.0f,
                          S - 4.0f + 4.0f + 9.0f};
    C.all("linalg_more", breadth::lin.to_vector(),
          [&](size_t I) { return I < 8 ? Want[I] : 0.0f; }, 1e-6);
  }
  {
    std::string Why = errorOf([] {
      breadth::formatted_assert(7, 1.5f);
      qd::sync();
    });
    C.that("QD_ASSERT formats its message",
           Why.find("QD_ASSERT failed in 'formatted_assert' at ") !=
                   std::string::npos &&
               Why.find("i < limit: i = 7 of 7, scale 1.500000, tag here, "
                        "ff%") != std::string::npos);
    if (Why.find("i = 7 of 7") == std::string::npos)
      std::printf("  got: %s\n", Why.c_str());
  }
  breadth::python_division(7, 2);
  {
    // Python: 7//2 3, 7%2 1, -7//2 -4, -7%2 1, 7//-2 -4, 7%-2 -1.
    const int32_t Want[] = {3, 1, -4, 1, -4, -1, 1, 0};
    C.all("python_division", breadth::pyint.to_vector(),
          [&](size_t I) { return Want[I]; });
    C.all("python_division float", breadth::pyflt.to_vector(),
          [](size_t I) { return I == 0 ? -4.0 : 0.5; });
  }
  breadth::promotion(0.25f, 3);
  {
    const double Want[] = {2.5 + 4.0 + 5.5, 3.0, 0.5, -7.0, 6.0, 5.5, 0, 0};
    C.all("promotion", breadth::promo.to_vector(),
          [&](size_t I) { return Want[I]; }, 1e-12);
  }
  {
    qd::Ndarray<float, 1> X({4});
    breadth::scale(X);
    qd::reset();
    qd::init();
    std::string Why = errorOf([&] { breadth::scale(X); });
    C.that("a freed argument names the kernel and argument",
           Why.find("kernel 'scale', argument 'x'") == 0 &&
               Why.find("qd::detail") == std::string::npos);
    if (Why.find("kernel 'scale'") != 0)
      std::printf("  got: %s\n", Why.c_str());
  }
  return C.finish();
}
