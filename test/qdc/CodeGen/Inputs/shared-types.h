// A struct the host program and the kernels share.
#pragma once
struct Span {
  int first, count;
};
