#include "k.qd.h"
int main() { k::step(1.0f); }
