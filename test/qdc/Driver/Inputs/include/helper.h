#pragma once
#ifndef SIZE
#define SIZE 16
#endif
