/*===- qd/abi.h - The C ABI between generated code and libqdrt -----------===*
 *
 * Part of qdc. What a qdc-generated object calls: it describes its module
 * once (images, tasks, kernels, fields), then launches kernels and reaches
 * fields through the functions below. Every function returns a status; on
 * failure qdrt_last_error() says what went wrong, naming the operation.
 *
 * The ABI is versioned: a module built for another QDRT_ABI_VERSION is
 * refused with a clear error instead of misreading its tables.
 *
 *===----------------------------------------------------------------------===*/

#ifndef QD_ABI_H
#define QD_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QDRT_ABI_VERSION 13u

/**
 * The device a call names when it names none: the calling thread's current
 * device of the runtime.
 */
#define QDRT_CURRENT_DEVICE (-1)

/**
 * An iteration count that the task computes itself when it starts (its
 * range reads device memory): a GPU launch covers the device, the CPU calls
 * the task's cpu_trip first.
 */
#define QDRT_DEVICE_TRIP UINT64_MAX

typedef enum qdrt_status { QDRT_SUCCESS = 0, QDRT_ERROR = 1 } qdrt_status;

/** The kind of a device image embedded in a module. */
typedef enum qdrt_image_kind {
  QDRT_IMAGE_PTX = 1,   /**< NUL-terminated PTX text; the driver JITs it */
  QDRT_IMAGE_CUBIN = 2, /**< SASS for exactly one sm_XX */
  QDRT_IMAGE_HSACO = 3, /**< an AMDGPU code object for one gfx arch */
  /** A CUDA fat binary (the `fatbinary` tool's format): SASS per arch and
   * PTX; the driver picks what this GPU runs. */
  QDRT_IMAGE_FATBIN = 4,
  /** A clang offload bundle of HSACO code objects, one per gfx arch (HIP's
   * fat binary); the HIP runtime picks the one for this GPU. */
  QDRT_IMAGE_OFFLOAD_BUNDLE = 5,
  /** A module of many entries cut into parts, each a module of its own with
   * a CUDA fat binary: `data` is a qdrt_image_parts. */
  QDRT_IMAGE_FATBIN_PARTS = 6
} qdrt_image_kind;

typedef struct qdrt_image {
  uint32_t kind; /**< a qdrt_image_kind */
  /** The architecture as a number: NVIDIA's SM number (90 for sm_90a), AMD's
   * gfx digits read as hexadecimal (0x90a for gfx90a). */
  uint32_t arch_number;
  const char *arch; /**< "sm_80", "gfx90a", ... */
  const void *data;
  uint64_t size; /**< bytes, including PTX's terminating NUL */
} qdrt_image;

/** A part of a QDRT_IMAGE_FATBIN_PARTS image. */
typedef struct qdrt_image_part {
  const void *data; /**< a CUDA fat binary */
  uint64_t size;
  /** The entry functions and globals it defines, each name NUL-terminated,
   * one after another, ended by an empty name. */
  const char *symbols;
} qdrt_image_part;

/** The data of a QDRT_IMAGE_FATBIN_PARTS image: every task and field of the
 * module is in one of its parts. */
typedef struct qdrt_image_parts {
  uint32_t num_parts;
  const qdrt_image_part *parts;
} qdrt_image_parts;

/**
 * The CPU form of a task: runs iterations [begin, end) of its linear index
 * space with the kernel's argument block.
 */
typedef void (*qdrt_cpu_task_fn)(const void *args, uint64_t begin,
                                 uint64_t end);

/** The CPU form of a QDRT_DEVICE_TRIP task's iteration count. */
typedef uint64_t (*qdrt_cpu_trip_fn)(const void *args);

/**
 * A kernel scalar set to a constant (`float s = 0;` before a loop reduces
 * into it): `bytes` (4 or 8) at `offset` of the kernel's scalar block take
 * `bits` (little-endian).
 */
typedef struct qdrt_scalar_fill {
  uint32_t offset;
  uint32_t bytes;
  uint64_t bits;
} qdrt_scalar_fill;

/**
 * Whether a tiled task's narrow entry may run for the argument block
 * `args`, and its grid: one block per tile, the grid's x the tiles of the
 * last dimension, y of the one before, z of the one before that (1 where
 * the range has fewer). Returns 0 where it may not: an ndarray argument of
 * 2^31 elements or more, or more tiles than a grid holds.
 */
typedef int (*qdrt_narrow_grid_fn)(const void *args, uint32_t grid[3]);

typedef struct qdrt_task_desc {
  const char *name; /**< entry point in the device images */
  uint32_t group; /**< 0: on the launch stream; 1..G: a stream-parallel group */
  uint32_t block_dim;        /**< threads per block; 0: the runtime's default */
  qdrt_cpu_task_fn cpu_fn;   /**< may be null when no CPU code was built */
  qdrt_cpu_trip_fn cpu_trip; /**< for QDRT_DEVICE_TRIP launches; or null */
  uint32_t cpu_threads;      /**< at most this many CPU threads; 0: all */
  /**
   * The entry of the task's latency version, or null: the same code with
   * its inner loops left to the GPU's assembler to unroll, which a launch
   * too small to fill the GPU runs instead (more loads in flight per thread
   * where there are too few threads to hide their latency).
   */
  const char *latency_name;
  uint32_t flags; /**< QDRT_TASK_* flags, or 0 */
  /**
   * A serial task that only sets kernel scalars to constants: those
   * values, which the runtime writes into the scalar block in the stream's
   * order instead of launching the task (a memset costs a GPU less than a
   * one-thread kernel); null otherwise.
   */
  const qdrt_scalar_fill *fills;
  uint32_t num_fills;
  /**
   * A tiled task's narrow entry, or null: the same code, each thread one
   * iteration of its block's tile on the grid narrow_grid gives, its
   * ndarray offsets in 32 bits. The runtime launches it instead of the
   * task's entry when narrow_grid says it may, the launch is small enough
   * or the flags say QDRT_TASK_NARROW_ALWAYS, and the latency version is
   * not chosen.
   */
  const char *narrow_name;
  qdrt_narrow_grid_fn narrow_grid;
} qdrt_task_desc;

/**
 * The task's loop runs in tiles (`qd::loop_config({.block_dim = {x, y}})`):
 * each block of a GPU grid takes a contiguous span of tiles, so the runtime
 * gives it a finer grid than a grid-stride loop's, which keeps the last
 * blocks to finish short.
 */
#define QDRT_TASK_TILED 1u

/**
 * The task's narrow entry runs at any size where narrow_grid allows it (its
 * tile leaves leading dimensions of the range out); without the flag only
 * launches of at most the device's latency bound run it, where a block's
 * span of tiles is one tile and finding it costs more than the tile.
 */
#define QDRT_TASK_NARROW_ALWAYS 2u

/**
 * The task's entries (its own, its latency version's and its narrow
 * entry's) begin by waiting for the grids before them on their stream
 * (PTX's griddepcontrol.wait) where they were compiled for NVIDIA GPUs of
 * compute capability 9.0 or later: the runtime may launch them there so
 * that their launch overlaps the end of the kernel before them.
 */
#define QDRT_TASK_GRID_WAIT 4u

/** The flag of a do_while loop is a field (flag_field), not a parameter. */
#define QDRT_FLAG_IN_ARGS UINT32_MAX

/** The deepest nesting of do_while loops a kernel may have. */
#define QDRT_MAX_LOOP_DEPTH 16

/**
 * A `qd::graph::do_while` loop of a kernel: its tasks [first_task,
 * first_task + num_tasks) (counted from the kernel's first task) run, then
 * run again while the int32_t flag is non-zero. Loops nest: a kernel lists
 * them in preorder, a loop before the loops inside it, whose tasks lie
 * within its own (maybe all of them), at most QDRT_MAX_LOOP_DEPTH deep;
 * sibling loops do not overlap. The flag is field
 * flag_field of the module, or, when flag_field is QDRT_FLAG_IN_ARGS, the
 * int32_t that the pointer at byte flag_offset of the argument block
 * points to (a 0-d ndarray parameter's data).
 */
typedef struct qdrt_graph_loop {
  uint32_t first_task;
  uint32_t num_tasks;
  uint32_t flag_field;
  uint32_t flag_offset;
} qdrt_graph_loop;

typedef struct qdrt_kernel_desc {
  const char *name;
  uint32_t first_task; /**< index into the module's task table */
  /** Tasks in launch order: groups non-decreasing, except that a kernel with
   * groups may end with tasks of group 0 (after the join), as it may start
   * with some (before the fork). */
  uint32_t num_tasks;
  uint32_t num_groups;
  uint32_t arg_size; /**< bytes of the argument block */
  /**
   * Bytes of device memory the kernel's scalars need for one call (0:
   * none). The runtime allocates them for each call, stream-ordered, and
   * writes their address into the argument block at scalars_offset.
   */
  uint32_t scalars_size;
  uint32_t scalars_offset;
  /** Where the return value lies among the scalars, and its size (0: void). */
  uint32_t result_offset;
  uint32_t result_size;
  uint32_t flags; /**< QDRT_KERNEL_GRAPH: a QD_GRAPH kernel */
  /** Its do_while loops in preorder (qdrt_graph_loop; a kernel with loops
   * has no stream-parallel groups); or null. */
  const qdrt_graph_loop *loops;
  uint32_t num_loops;
} qdrt_kernel_desc;

/** The kernel replays a cached graph of its tasks (QD_GRAPH). */
#define QDRT_KERNEL_GRAPH 1u

typedef struct qdrt_field_desc {
  const char *name; /**< the device global's symbol */
  uint64_t bytes;   /**< size of the whole field */
  void *host_data;  /**< the CPU backend's storage */
} qdrt_field_desc;

/**
 * The first failed QD_ASSERT of a module's code, as the failing thread
 * wrote it: `failed` is set first (atomically, 0 to 1), the rest after.
 */
typedef struct qdrt_assert_record {
  uint32_t failed;
  uint32_t line;
  /** 0: QD_ASSERT; 1: an index check of --debug; 2: assert; 3: a loop with
   * block syncs whose iteration count does not fill whole blocks */
  uint32_t kind;
  char function[64]; /**< the generated function: <kernel>_t<task>, a QD_FUNC */
  char file[128];
  char text[256]; /**< "<condition>: <message>" */
} qdrt_assert_record;

typedef struct qdrt_module_desc {
  uint32_t abi_version; /**< QDRT_ABI_VERSION of the generating qdc */
  const char *name;
  const qdrt_image *images;
  uint32_t num_images;
  const qdrt_task_desc *tasks;
  uint32_t num_tasks;
  const qdrt_kernel_desc *kernels;
  uint32_t num_kernels;
  const qdrt_field_desc *fields;
  uint32_t num_fields;
  uint32_t max_groups; /**< the largest num_groups of any kernel */
  /**
   * The module's assertion record (a qdrt_assert_record global named like
   * a field), or null when its code has no QD_ASSERT. The runtime reads it
   * at synchronization points.
   */
  const qdrt_field_desc *assert_record;
} qdrt_module_desc;

typedef struct qdrt_module qdrt_module;

/**
 * Registers a module; cheap, nothing is loaded until the first launch. The
 * descriptor must outlive the process's use of the module (generated code
 * keeps it in static storage).
 */
qdrt_status qdrt_register_module(const qdrt_module_desc *desc,
                                 qdrt_module **out);

/**
 * Launches kernel `kernel` of `module` on `stream` of device `device` (the
 * ordinal of a device of the runtime's backend, or QDRT_CURRENT_DEVICE;
 * stream 0: that device's default stream). `args` (the kernel's arg_size
 * bytes) is copied before the call returns. `iterations[i]` is the size of
 * the linear index space of the kernel's i-th task. The module's images are
 * loaded on the device on its first launch there.
 *
 * On GPUs each task's entry point takes the argument block by value (when
 * arg_size is not 0) followed by a uint64_t iteration count, and covers
 * [0, count) with a grid-stride loop; the runtime picks the grid size.
 */
qdrt_status qdrt_launch(qdrt_module *module, uint32_t kernel, const void *args,
                        const uint64_t *iterations, int32_t device,
                        void *stream);

/**
 * qdrt_launch, then copies the kernel's return value (result_size bytes)
 * to `result` once the launch stream has run the kernel: this waits for
 * that stream only.
 */
qdrt_status qdrt_launch_result(qdrt_module *module, uint32_t kernel,
                               const void *args, const uint64_t *iterations,
                               int32_t device, void *stream, void *result);

/**
 * The address of a field on device `device` (QDRT_CURRENT_DEVICE: the
 * current one; a host address on the CPU): every device that runs a
 * module's kernels has its own copy of the module's fields.
 */
qdrt_status qdrt_field_address(qdrt_module *module, int32_t device,
                               uint32_t field, void **address);

/**
 * The native entry point of task `task` of kernel `kernel` on device
 * `device` (a CUfunction or hipFunction_t; the CPU function on the CPU),
 * loading the module there if needed: for interoperation and measurement.
 */
qdrt_status qdrt_task_function(qdrt_module *module, int32_t device,
                               uint32_t kernel, uint32_t task, void **native);

/** The message of the calling thread's last failure. */
const char *qdrt_last_error(void);

/** QDRT_ABI_VERSION of the linked runtime. */
uint32_t qdrt_abi_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QD_ABI_H */
