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

// The same shape with values only: level K returns early for
// i % (K + 2) == 1, else works on what the deeper levels return.
inline int lad30(int i) { return i % 9; }
#define QD_LAD(K, NEXT)                                                        \
  inline int lad##K(int i) {                                                   \
    if (i % (K + 2) == 1)                                                      \
      return (i % 1000) * (K % 9 + 1) + K;                                     \
    int x = NEXT(i);                                                           \
    return x + (i % 7 + x % 11) % 5;                                           \
  }
QD_LAD(29, lad30)
QD_LAD(28, lad29)
QD_LAD(27, lad28)
QD_LAD(26, lad27)
QD_LAD(25, lad26)
QD_LAD(24, lad25)
QD_LAD(23, lad24)
QD_LAD(22, lad23)
QD_LAD(21, lad22)
QD_LAD(20, lad21)
QD_LAD(19, lad20)
QD_LAD(18, lad19)
QD_LAD(17, lad18)
QD_LAD(16, lad17)
QD_LAD(15, lad16)
QD_LAD(14, lad15)
QD_LAD(13, lad14)
QD_LAD(12, lad13)
QD_LAD(11, lad12)
QD_LAD(10, lad11)
QD_LAD(9, lad10)
QD_LAD(8, lad9)
QD_LAD(7, lad8)
QD_LAD(6, lad7)
QD_LAD(5, lad6)
QD_LAD(4, lad5)
QD_LAD(3, lad4)
QD_LAD(2, lad3)
QD_LAD(1, lad2)
QD_LAD(0, lad1)

#endif // QDC_TEST_E2E_DIVERGENT_STEPS_H
