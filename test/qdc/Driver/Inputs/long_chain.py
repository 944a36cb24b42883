"""Prints a kernel whose loop is one 3,000-deep `?:` chain: more basic blocks
than the optimization limit (docs/compiler.md, "Compile time")."""
chain = "".join(f"i == {k} ? {k} : " for k in range(3000)) + "0"
print("#include <qd/qd.h>\nqd::field<int, 4> f;\nQD_KERNEL void k() {\n"
      f"  for (int i : qd::range(4)) f[i] = {chain};\n}}")
