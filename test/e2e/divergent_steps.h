// divergent.qd's functions, shared with divergent_main.cpp (the serial
// reference).
#ifndef QDC_TEST_E2E_DIVERGENT_STEPS_H
#define QDC_TEST_E2E_DIVERGENT_STEPS_H

inline int step30(int i, int *r) {
  *r = i % 8 - i;
  return i % 7;
}

// Level K: lanes with i % (K + 2) == 1 return here, the others go deeper.
#define QD_STEP(K, NEXT)                                                       \
  inline int step##K(int i, int *r) {                                          \
    if (i % (K + 2) == 1) {                                                    \
      *r = i * (K + 1) + i % 8;                                                \
      return K;                                                                \
    }                                                                          \
    int x = NEXT(i, r);                                                        \
    *r += ((i + x) % 8 + i * (K + 1)) % 5;                                     \
    return x + 1;                                                              \
  }
QD_STEP(29, step30)
QD_STEP(28, step29)
QD_STEP(27, step28)
QD_STEP(26, step27)
QD_STEP(25, step26)
QD_STEP(24, step25)
QD_STEP(23, step24)
QD_STEP(22, step23)
QD_STEP(21, step22)
QD_STEP(20, step21)
QD_STEP(19, step20)
QD_STEP(18, step19)
QD_STEP(17, step18)
QD_STEP(16, step17)
QD_STEP(15, step16)
QD_STEP(14, step15)
QD_STEP(13, step14)
QD_STEP(12, step13)
QD_STEP(11, step12)
QD_STEP(10, step11)
QD_STEP(9, step10)
QD_STEP(8, step9)
QD_STEP(7, step8)
QD_STEP(6, step7)
QD_STEP(5, step6)
QD_STEP(4, step5)
QD_STEP(3, step4)
QD_STEP(2, step3)
QD_STEP(1, step2)
QD_STEP(0, step1)

#endif // QDC_TEST_E2E_DIVERGENT_STEPS_H
