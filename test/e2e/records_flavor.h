// An inline function whose body depends on how its module was compiled:
// each module must keep its own copy (none may be picked for all).
#ifndef QDC_TEST_E2E_RECORDS_FLAVOR_H
#define QDC_TEST_E2E_RECORDS_FLAVOR_H
// Not inlined, so that a copy the linker picked for all would show.
__attribute__((noinline)) inline int flavor() {
  int f = 0;
#ifdef NDEBUG
  f |= 1;
#endif
#ifdef QD_DEBUG
  f |= 2;
#endif
#ifdef __FAST_MATH__
  f |= 4;
#endif
  return f;
}
#endif
