// A struct shared by language.qd and the host program: the generated
// header includes this file.
#pragma once
struct Span {
  int first, count;
};
