constexpr int SysValue = 4;
