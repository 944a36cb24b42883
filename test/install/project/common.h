// Included by fill.qd only: touching it must rebuild fill.o and nothing else.
#pragma once
constexpr int Size = 512;
