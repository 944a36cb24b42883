# qdc_add_kernels(<target> <file.qd>... [OFFLOAD_ARCH <arch>...] [OPTIONS <opt>...])
#
# Compiles each .qd file with qdc into an object and a header
# (<stem>.qd.h), adds the objects to <target>, makes the headers' folder an
# include directory of <target>, and links libqdrt.
#
# QDC_EXECUTABLE names the qdc target to run (qdc::qdc from the installed
# package, qdc in qdc's own build) and QDC_RUNTIME_TARGET the libqdrt
# target to link (qdc::qdrt, or qdc::qdrt_static). QDC_KERNEL_DEPENDS, when
# set (qdc's own build), lists files every object depends on besides its
# depfile: the prelude headers, which depfiles leave out as system headers.
function(qdc_add_kernels target)
  cmake_parse_arguments(ARG "" "" "OFFLOAD_ARCH;OPTIONS" ${ARGN})
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/qdc/${target})
  file(MAKE_DIRECTORY ${out_dir})
  set(arch_flags)
  if(ARG_OFFLOAD_ARCH)
    list(JOIN ARG_OFFLOAD_ARCH "," archs)
    set(arch_flags --offload-arch=${archs})
  endif()
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
  foreach(source ${ARG_UNPARSED_ARGUMENTS})
    get_filename_component(abs ${source} ABSOLUTE)
    get_filename_component(stem ${source} NAME_WE)
    set(object ${out_dir}/${stem}.o)
    set(header ${out_dir}/${stem}.qd.h)
    # The depfile lists every header the .qd includes, so editing one
    # rebuilds exactly the objects that include it.
    add_custom_command(
      OUTPUT ${object} ${header}
      COMMAND ${QDC_EXECUTABLE} ${abs} -o ${object} -H ${header}
              -MD -MF ${object}.d -MT ${object}
              ${target_flags} ${arch_flags} ${ARG_OPTIONS}
      DEPENDS ${abs} $<TARGET_FILE:${QDC_EXECUTABLE}> ${QDC_KERNEL_DEPENDS}
      DEPFILE ${object}.d
      COMMENT "qdc ${source}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    target_sources(${target} PRIVATE ${object} ${header})
  endforeach()
  target_include_directories(${target} PRIVATE ${out_dir})
  target_link_libraries(${target} PRIVATE ${QDC_RUNTIME_TARGET})
endfunction()
