// Calls the kernel of device-printf.qd once; its output is the test's.
#include <qd/runtime.h>

int main() {
  qd::init();
  dp::report(2.5f);
  qd::sync();
  return 0;
}
