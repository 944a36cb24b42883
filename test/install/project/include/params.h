// Reached through the target's include directories: qdc_add_kernels passes
// them (and its definitions and C++ standard) to qdc.
#pragma once
constexpr float Bias = APP_BIAS;
