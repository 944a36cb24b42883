#include "fill.qd.h"
#include "scale.qd.h"
#include "a/kern.qd.h"
#include "b/kern.qd.h"
#include <cstdio>
int main() {
  fill::fill(1.0f);
  std::vector<float> A = fill::a.to_vector();
  qd::Ndarray<float, 1> X({16});
  X.fill(2.0f);
  scale::scale(X, 4.0f);
  std::vector<float> Xs = X.to_vector();
  a::kern::mark();
  b::kern::mark();
  bool OK = A[0] == 1.0f && A[511] == 512.0f && Xs[15] == 8.5f &&
            a::kern::marks.to_vector()[3] == 1 &&
            b::kern::marks.to_vector()[3] == 2;
  std::printf("%s\n", OK ? "consumer ok" : "consumer FAILED");
  return OK ? 0 : 1;
}
