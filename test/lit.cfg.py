# lit configuration for the qdc compiler tests.
import os
import shutil

import lit.formats

config.name = "qdc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".qd", ".test"]
config.excludes = ["Inputs", "e2e", "runtime", "unittests", "bench", "install", "docs", "fuzz", "python"]
config.test_source_root = os.path.join(config.qdc_src_root, "test")
config.test_exec_root = os.path.join(config.qdc_obj_root, "test")

# The tools under test come first on PATH, then LLVM's FileCheck, not, ...
config.environment["PATH"] = os.pathsep.join(
    [config.qdc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")]
)
# Diagnostics in tests are plain text.
config.environment.pop("TERM", None)

config.substitutions.append(("%qdc", os.path.join(config.qdc_tools_dir, "qdc")))
config.substitutions.append(("%clangxx", config.clang_executable + "++"))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(
    ("%libqdrt", os.path.join(config.qdc_obj_root, "lib", "libqdrt.so"))
)
config.substitutions.append(
    ("%qdrt_lib_dir", os.path.join(config.qdc_obj_root, "lib"))
)
# The prelude as users include it: `-I %qd_include` then `#include <qd/qd.h>`.
config.substitutions.append(
    ("%qd_include", os.path.join(config.qdc_src_root, "include"))
)
# The command that checks a .qd file is plain C++ (what clangd and clang-tidy see).
config.substitutions.append(
    (
        "%host-syntax",
        config.clang_executable
        + "++ -fsyntax-only -x c++ -std=c++20 -Wall -Wextra -Werror -I "
        + os.path.join(config.qdc_src_root, "include"),
    )
)

# Optional tools become lit features: `REQUIRES: ptxas`.
if not shutil.which("ptxas") and os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.environment["PATH"] += os.pathsep + "/usr/local/cuda/bin"
if shutil.which("ptxas", path=config.environment["PATH"]):
    config.available_features.add("ptxas")
    config.substitutions.append(
        ("%ptxas", shutil.which("ptxas", path=config.environment["PATH"])))
    # qdc packs PTX and SASS with the fatbinary beside that ptxas.
    ptxas_dir = os.path.dirname(shutil.which("ptxas", path=config.environment["PATH"]))
    if os.path.exists(os.path.join(ptxas_dir, "fatbinary")):
        config.available_features.add("fatbinary")
    if os.path.exists(os.path.join(ptxas_dir, "cuobjdump")):
        config.available_features.add("cuobjdump")
# The tests' PATH, for a test that puts a folder before it (`env PATH=...`).
config.substitutions.append(("%{path}", config.environment["PATH"]))
if shutil.which("clangd"):
    config.available_features.add("clangd")
if shutil.which("dot"):
    config.available_features.add("dot")
if hasattr(os, "getuid") and os.getuid() == 0:
    config.available_features.add("root")
# A machine whose CUDA driver is loadable: --offload-arch=native may find a GPU.
import ctypes
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
