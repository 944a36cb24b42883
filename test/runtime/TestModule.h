//===- TestModule.h - Hand-built module descriptors for tests ---*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Builds the tables a qdc-generated object would hold, so the
// runtime can be tested without the code generator.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_TEST_TESTMODULE_H
#define QDRT_TEST_TESTMODULE_H

#include "qd/abi.h"
#include "qd/runtime.h"

#include <deque>
#include <string>
#include <vector>

namespace qd::rt::test {

struct TestTask {
  unsigned Group = 0;
  qdrt_cpu_task_fn Cpu = nullptr;
  unsigned BlockDim = 0;
  const char *Entry = nullptr; ///< entry point; default <kernel>_t<index>
  unsigned CpuThreads = 0;
  const char *Latency = nullptr; ///< the latency version's entry, if any
  const char *Narrow = nullptr;  ///< the narrow entry, if any
  qdrt_narrow_grid_fn NarrowGrid = nullptr;
  uint32_t Flags = 0; ///< qdrt_task_desc::flags
};

class TestModule {
public:
  explicit TestModule(std::string Name) : Name(std::move(Name)) {}

  /// Adds a kernel whose tasks are named <kernel>_t0, _t1, ...; returns
  /// its index.
  uint32_t addKernel(const std::string &Kernel, std::vector<TestTask> Tasks,
                     uint32_t ArgSize = 0, uint32_t Flags = 0) {
    qdrt_kernel_desc K{};
    K.name = keep(Kernel);
    K.flags = Flags;
    K.first_task = static_cast<uint32_t>(TaskTable.size());
    K.num_tasks = static_cast<uint32_t>(Tasks.size());
    K.arg_size = ArgSize;
    for (size_t I = 0; I < Tasks.size(); ++I) {
      qdrt_task_desc T{};
      T.name = Tasks[I].Entry ? keep(Tasks[I].Entry)
                              : keep(Kernel + "_t" + std::to_string(I));
      T.group = Tasks[I].Group;
      T.block_dim = Tasks[I].BlockDim;
      T.cpu_fn = Tasks[I].Cpu;
      T.cpu_threads = Tasks[I].CpuThreads;
      T.latency_name = Tasks[I].Latency ? keep(Tasks[I].Latency) : nullptr;
      T.narrow_name = Tasks[I].Narrow ? keep(Tasks[I].Narrow) : nullptr;
      T.narrow_grid = Tasks[I].NarrowGrid;
      T.flags = Tasks[I].Flags;
      TaskTable.push_back(T);
      K.num_groups = std::max(K.num_groups, T.group);
    }
    KernelTable.push_back(K);
    return static_cast<uint32_t>(KernelTable.size() - 1);
  }

  /// Gives kernel Kernel qd::graph::do_while loops.
  void setLoops(uint32_t Kernel, std::vector<qdrt_graph_loop> Loops) {
    LoopTables.push_back(std::move(Loops));
    KernelTable[Kernel].loops = LoopTables.back().data();
    KernelTable[Kernel].num_loops =
        static_cast<uint32_t>(LoopTables.back().size());
  }

  /// Gives kernel Kernel a scalar block of Size bytes, whose address the
  /// runtime writes at Offset of the argument block; a call that returns a
  /// value gets ResultSize bytes of it from ResultOffset.
  void setScalars(uint32_t Kernel, uint32_t Size, uint32_t Offset,
                  uint32_t ResultOffset = 0, uint32_t ResultSize = 0) {
    qdrt_kernel_desc &K = KernelTable[Kernel];
    K.scalars_size = Size;
    K.scalars_offset = Offset;
    K.result_offset = ResultOffset;
    K.result_size = ResultSize;
  }

  /// Makes task Task (an index into the module's task table) one that only
  /// sets kernel scalars to constants: Fills.
  void setFills(uint32_t Task, std::vector<qdrt_scalar_fill> Fills) {
    FillTables.push_back(std::move(Fills));
    TaskTable[Task].fills = FillTables.back().data();
    TaskTable[Task].num_fills = static_cast<uint32_t>(FillTables.back().size());
  }

  uint32_t addField(const std::string &Field, void *HostData, uint64_t Bytes) {
    FieldTable.push_back({keep(Field), Bytes, HostData});
    return static_cast<uint32_t>(FieldTable.size() - 1);
  }

  /// Gives the module an assertion record at Record (host memory: the CPU
  /// backend's and the mock device's).
  void setAssertRecord(qdrt_assert_record *Record) {
    RecordDesc = {"qd_assert_record_", sizeof(qdrt_assert_record), Record};
    HasRecord = Record != nullptr;
  }

  void addImage(qdrt_image_kind Kind, uint32_t ArchNumber, const char *Arch,
                const void *Data, uint64_t Size) {
    ImageTable.push_back(
        {static_cast<uint32_t>(Kind), ArchNumber, keep(Arch), Data, Size});
  }

  /// The descriptor; valid while this object lives and is not changed.
  const qdrt_module_desc &desc(uint32_t AbiVersion = QDRT_ABI_VERSION) {
    Desc = {};
    Desc.abi_version = AbiVersion;
    Desc.name = Name.c_str();
    Desc.images = ImageTable.data();
    Desc.num_images = static_cast<uint32_t>(ImageTable.size());
    Desc.tasks = TaskTable.data();
    Desc.num_tasks = static_cast<uint32_t>(TaskTable.size());
    Desc.kernels = KernelTable.data();
    Desc.num_kernels = static_cast<uint32_t>(KernelTable.size());
    Desc.fields = FieldTable.data();
    Desc.num_fields = static_cast<uint32_t>(FieldTable.size());
    for (const qdrt_kernel_desc &K : KernelTable)
      Desc.max_groups = std::max(Desc.max_groups, K.num_groups);
    Desc.assert_record = HasRecord ? &RecordDesc : nullptr;
    return Desc;
  }

  qdrt_module *registered() {
    qdrt_module *M = nullptr;
    qd::detail::check(qdrt_register_module(&desc(), &M));
    return M;
  }

private:
  const char *keep(const std::string &S) {
    Strings.push_back(S);
    return Strings.back().c_str();
  }

  std::string Name;
  std::deque<std::string> Strings;
  std::deque<std::vector<qdrt_graph_loop>> LoopTables;
  std::deque<std::vector<qdrt_scalar_fill>> FillTables;
  std::vector<qdrt_task_desc> TaskTable;
  std::vector<qdrt_kernel_desc> KernelTable;
  std::vector<qdrt_field_desc> FieldTable;
  std::vector<qdrt_image> ImageTable;
  qdrt_field_desc RecordDesc{};
  bool HasRecord = false;
  qdrt_module_desc Desc{};
};

/// Launches kernel K of M with one iteration count per task, on S as
/// qd::on(*S) gives it to generated code.
inline void launch(qdrt_module *M, uint32_t K, std::vector<uint64_t> Iterations,
                   const void *Args = nullptr, const qd::Stream *S = nullptr) {
  qd::Launch L = S ? qd::on(*S) : qd::Launch{};
  qd::detail::check(
      qdrt_launch(M, K, Args, Iterations.data(), L.device, L.stream));
}

} // namespace qd::rt::test

#endif // QDRT_TEST_TESTMODULE_H
