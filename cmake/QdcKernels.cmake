# qdc_add_kernels(<target> <file.qd>... [OFFLOAD_ARCH <arch>...] [OPTIONS <opt>...])
#
# Compiles each .qd file with qdc into an object and a header
# (<stem>.qd.h), adds the objects to <target>, makes the headers' folder an
# include directory of <target>, and links libqdrt.
#
# Architectures: OFFLOAD_ARCH when given; else the target's
# CUDA_ARCHITECTURES and HIP_ARCHITECTURES (initialized from
# CMAKE_CUDA_ARCHITECTURES and CMAKE_HIP_ARCHITECTURES): 80 or 80-real is
# sm_80, 90a sm_90a, native native, gfx90a gfx90a; all, all-major and OFF
# leave qdc's default.
#
# A .qd in a subfolder of the current source folder gets its object and
# header under the same subfolder of the output folder, and both folders
# are include directories: `#include "kern.qd.h"` finds it. Two .qd files
# of one target with the same name (a/kern.qd, b/kern.qd) are included as
# "a/kern.qd.h" and "b/kern.qd.h" and get the namespaces a::kern and
# b::kern (unless OPTIONS names one).
#
# clangd: when QDC_WRITE_CLANGD is ON (it is OFF by default: nothing is
# written into the source tree unless asked), the call writes a .clangd file
# into the current source folder that makes clangd read .qd files as qdc
# does (what `qdc --print-clangd-config` prints), unless a .clangd that qdc
# did not write is there.
#
# Launchers: the target property QDC_COMPILER_LAUNCHER, else the variable of
# that name (a list: a command and its arguments), goes before qdc in each
# command, as CMAKE_<LANG>_COMPILER_LAUNCHER does for a compiler (a wrapper
# that times, logs or distributes compiles). ccache and sccache cannot cache
# qdc (one compile writes two outputs, the object and the header): qdc has
# its own cache instead (`qdc --cache-dir`), with the precompiled launcher
# headers that make a compile the cache misses three times faster, in
# QDC_CACHE_DIR: the folder qdc-cache of the build folder unless set (set it
# empty for none; the environment variable of that name does the same for
# qdc wherever it runs).
#
# QDC_EXECUTABLE names the qdc target to run (qdc::qdc from the installed
# package, qdc in qdc's own build) and QDC_RUNTIME_TARGET the libqdrt
# target to link (qdc::qdrt, or qdc::qdrt_static). QDC_KERNEL_DEPENDS, when
# set (qdc's own build), lists files every object depends on besides its
# depfile: the prelude headers, which depfiles leave out as system headers.

# qdc's --offload-arch spelling of the CUDA and HIP architectures CMake
# gives (a list); empty for those that leave qdc's default.
function(_qdc_cmake_archs out cuda hip)
  set(archs)
  foreach(a IN LISTS cuda)
    string(REGEX REPLACE "-(real|virtual)$" "" a "${a}")
    if(a MATCHES "^[0-9]+[af]?$")
      list(APPEND archs sm_${a})
    elseif(a STREQUAL "native")
      list(APPEND archs native)
    endif()
  endforeach()
  foreach(a IN LISTS hip)
    if(a MATCHES "^gfx[0-9a-f]+")
      list(APPEND archs ${a})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES archs)
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

# The .clangd of the current source folder (see above), once per folder.
function(_qdc_write_clangd)
  if(NOT QDC_WRITE_CLANGD)
    return()
  endif()
  get_property(done DIRECTORY PROPERTY QDC_CLANGD_WRITTEN)
  if(done)
    return()
  endif()
  set_property(DIRECTORY PROPERTY QDC_CLANGD_WRITTEN TRUE)
  set(clangd ${CMAKE_CURRENT_SOURCE_DIR}/.clangd)
  set(marker "# Written by qdc")
  if(EXISTS ${clangd})
    file(STRINGS ${clangd} first LIMIT_COUNT 1)
    if(NOT first MATCHES "^${marker}")
      message(STATUS "qdc: ${clangd} is not qdc's; left as it is")
      return()
    endif()
  endif()
  # The same text as qdc --print-clangd-config; the headers' folder is the
  # runtime's include directory, which is qdc's.
  set(include "$<TARGET_PROPERTY:${QDC_RUNTIME_TARGET},INTERFACE_INCLUDE_DIRECTORIES>")
  file(GENERATE OUTPUT ${clangd} CONTENT
"${marker} --print-clangd-config: clangd reads .qd files as qdc does.
If:
  PathMatch: .*\\.qd
CompileFlags:
  Add: [-xc++, -std=c++20, -isystem, \"$<JOIN:${include},\", -isystem, \">\", -D__QDC__=1]
")
endfunction()

function(qdc_add_kernels target)
  cmake_parse_arguments(ARG "" "PYTHON_SOURCES" "OFFLOAD_ARCH;OPTIONS" ${ARGN})
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/qdc/${target})
  file(MAKE_DIRECTORY ${out_dir})
  set(arch_flags)
  set(archs ${ARG_OFFLOAD_ARCH})
  if(NOT archs)
    get_target_property(cuda_archs ${target} CUDA_ARCHITECTURES)
    get_target_property(hip_archs ${target} HIP_ARCHITECTURES)
    if(NOT cuda_archs AND DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(cuda_archs "${CMAKE_CUDA_ARCHITECTURES}")
    endif()
    if(NOT hip_archs AND DEFINED CMAKE_HIP_ARCHITECTURES)
      set(hip_archs "${CMAKE_HIP_ARCHITECTURES}")
    endif()
    _qdc_cmake_archs(archs "${cuda_archs}" "${hip_archs}")
  endif()
  if(archs)
    list(JOIN archs "," joined)
    set(arch_flags --offload-arch=${joined})
  endif()
  # Stems that two .qd files of the target share (this call's and those
  # of earlier calls for the target).
  get_property(stems TARGET ${target} PROPERTY QDC_KERNEL_STEMS)
  set(shared)
  foreach(source ${ARG_UNPARSED_ARGUMENTS})
    get_filename_component(stem ${source} NAME_WE)
    if(stem IN_LIST stems)
      list(APPEND shared ${stem})
    endif()
    list(APPEND stems ${stem})
  endforeach()
  set_property(TARGET ${target} PROPERTY QDC_KERNEL_STEMS "${stems}")
  set(names_namespace FALSE)
  foreach(opt IN LISTS ARG_OPTIONS)
    if(opt MATCHES "^--?namespace")
      set(names_namespace TRUE)
    endif()
  endforeach()
  # What the target's own C++ sources are compiled with: its include
  # directories, definitions and C++ standard (generator expressions, so
  # that settings made after this call count too). A .qd is C++20 at
  # least: a target standard below it is not passed on.
  set(includes "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defines "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(standard "$<TARGET_PROPERTY:${target},CXX_STANDARD>")
  set(target_flags
    "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>"
    "$<$<BOOL:${defines}>:-D$<JOIN:${defines},$<SEMICOLON>-D>>"
    "$<$<STREQUAL:${standard},23>:-std=c++23>"
    "$<$<STREQUAL:${standard},26>:-std=c++26>")
  # A launcher before qdc, as CMAKE_<LANG>_COMPILER_LAUNCHER puts one before
  # a compiler: the target's QDC_COMPILER_LAUNCHER property, else the
  # variable.
  get_target_property(launcher ${target} QDC_COMPILER_LAUNCHER)
  if(NOT launcher)
    set(launcher ${QDC_COMPILER_LAUNCHER})
  endif()
  if(launcher)
    set(qdc_command ${launcher} $<TARGET_FILE:${QDC_EXECUTABLE}>)
  else()
    set(qdc_command ${QDC_EXECUTABLE})
  endif()
  # The compile cache (and its precompiled launcher headers) in the build
  # folder unless QDC_CACHE_DIR says where (empty: none).
  if(NOT DEFINED QDC_CACHE_DIR)
    set(QDC_CACHE_DIR ${CMAKE_BINARY_DIR}/qdc-cache)
  endif()
  set(cache_flag)
  if(QDC_CACHE_DIR)
    set(cache_flag --cache-dir=${QDC_CACHE_DIR})
  endif()
  set(include_dirs ${out_dir})
  foreach(source ${ARG_UNPARSED_ARGUMENTS})
    get_filename_component(abs ${source} ABSOLUTE)
    get_filename_component(stem ${source} NAME_WE)
    # The subfolder of the current source folder the .qd is in, if any.
    get_filename_component(dir ${abs} DIRECTORY)
    file(RELATIVE_PATH rel ${CMAKE_CURRENT_SOURCE_DIR} ${dir})
    if(rel MATCHES "^\\.\\.")
      set(rel "")
    endif()
    set(obj_dir ${out_dir})
    if(rel)
      set(obj_dir ${out_dir}/${rel})
      file(MAKE_DIRECTORY ${obj_dir})
      list(APPEND include_dirs ${obj_dir})
    endif()
    set(object ${obj_dir}/${stem}.o)
    set(header ${obj_dir}/${stem}.qd.h)
    set(namespace_flag)
    set(python_flag)
    set(python_source)
    if(ARG_PYTHON_SOURCES)
      # qdc_add_python_module: the nanobind source beside the object.
      set(python_source ${obj_dir}/${stem}.qd.python.cpp)
      set(python_flag --emit-python=${python_source})
      list(APPEND python_sources ${python_source})
    endif()
    if(stem IN_LIST shared AND NOT names_namespace)
      if(NOT rel)
        message(FATAL_ERROR "qdc_add_kernels(${target}): two .qd files "
          "named ${stem}.qd; put them in different subfolders of "
          "${CMAKE_CURRENT_SOURCE_DIR}, or name a namespace in OPTIONS")
      endif()
      string(REGEX REPLACE "[^A-Za-z0-9_/]" "_" ns "${rel}/${stem}")
      string(REPLACE "/" "::" ns "${ns}")
      set(namespace_flag --namespace=${ns})
    endif()
    # The depfile lists every header the .qd includes, so editing one
    # rebuilds exactly the objects that include it.
    add_custom_command(
      OUTPUT ${object} ${header} ${python_source}
      COMMAND ${qdc_command} ${abs} -o ${object} -H ${header}
              -MD -MF ${object}.d -MT ${object} ${python_flag}
              ${target_flags} ${arch_flags} ${namespace_flag} ${cache_flag}
              ${ARG_OPTIONS}
      DEPENDS ${abs} $<TARGET_FILE:${QDC_EXECUTABLE}> ${QDC_KERNEL_DEPENDS}
      DEPFILE ${object}.d
      COMMENT "qdc ${source}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    target_sources(${target} PRIVATE ${object} ${header})
  endforeach()
  list(REMOVE_DUPLICATES include_dirs)
  target_include_directories(${target} PRIVATE ${include_dirs})
  _qdc_write_clangd()
  target_link_libraries(${target} PRIVATE ${QDC_RUNTIME_TARGET})
  if(ARG_PYTHON_SOURCES)
    set(${ARG_PYTHON_SOURCES} ${python_sources} PARENT_SCOPE)
  endif()
endfunction()

# qdc_add_python_module(<name> <file.qd>... [OFFLOAD_ARCH <arch>...]
#                       [OPTIONS <opt>...])
#
# Builds the Python extension module <name> from .qd files (DESIGN section
# 5.1): each .qd is compiled as by qdc_add_kernels, with its nanobind
# source (--emit-python), and the module is made with nanobind_add_module
# (the stable ABI where the Python has one). `import <name>` then gives
# every kernel and field of the files, and the runtime API (init, sync,
# streams, events, Error). Needs find_package(Python ... Development.Module)
# and find_package(nanobind CONFIG) first. The module links
# QDC_RUNTIME_TARGET; with the static runtime (qdc::qdrt_static) it is
# self-contained, as a wheel wants it.
function(qdc_add_python_module name)
  if(NOT COMMAND nanobind_add_module)
    message(FATAL_ERROR "qdc_add_python_module(${name}): nanobind is not "
      "found; call find_package(Python 3.8 COMPONENTS Interpreter "
      "Development.Module) and find_package(nanobind CONFIG) first")
  endif()
  cmake_parse_arguments(ARG "" "" "OFFLOAD_ARCH;OPTIONS" ${ARGN})
  set(files ${ARG_UNPARSED_ARGUMENTS})
  # One NB_MODULE named <name>, binding each file's part (the function
  # qd_python_bind_<namespace> of its generated source).
  set(main ${CMAKE_CURRENT_BINARY_DIR}/qdc/${name}/${name}.python.cpp)
  set(text "// Generated by qdc_add_python_module; do not edit.\n")
  string(APPEND text "#include <nanobind/nanobind.h>\n")
  set(calls)
  foreach(source ${files})
    get_filename_component(stem ${source} NAME_WE)
    string(REGEX REPLACE "[^A-Za-z0-9_]" "_" bind "${stem}")
    string(APPEND text "void qd_python_bind_${bind}(nanobind::module_ &);\n")
    string(APPEND calls "  qd_python_bind_${bind}(m);\n")
  endforeach()
  string(APPEND text "NB_MODULE(${name}, m) {\n${calls}}\n")
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/qdc/${name})
  file(CONFIGURE OUTPUT ${main} CONTENT "${text}")
  nanobind_add_module(${name} STABLE_ABI NB_STATIC ${main})
  qdc_add_kernels(${name} ${files} OFFLOAD_ARCH ${ARG_OFFLOAD_ARCH}
    OPTIONS ${ARG_OPTIONS} PYTHON_SOURCES sources)
  target_sources(${name} PRIVATE ${sources})
  set_source_files_properties(${sources} TARGET_DIRECTORY ${name}
    PROPERTIES COMPILE_DEFINITIONS QD_PYTHON_NO_MODULE)
  # A shared runtime installed beside the module is found there.
  set_target_properties(${name} PROPERTIES INSTALL_RPATH "$ORIGIN")
endfunction()
