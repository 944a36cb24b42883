//===- StreamPlan.cpp - What runs where, and when -------------------------===//
//
// Part of qdc. The --emit=stream-plan dumps: for each kernel, which tasks run
// on the launch stream, which run on a group's worker stream, and where the
// launch stream forks and joins. Text for people, DOT for pictures.
//
//===----------------------------------------------------------------------===//

#include "qdc/KIR/Kernel.h"
#include "qdc/KIR/Printer.h"

#include "llvm/ADT/STLExtras.h"

using namespace qdc;
using namespace qdc::kir;

namespace {
/// A run of consecutive tasks with the same group id.
struct Segment {
  unsigned Group;
  std::vector<const Task *> Tasks;
};
} // namespace

/// Splits a kernel's tasks into segments. Groups are listed even when empty
/// (an empty QD_STREAM_PARALLEL block still has a number).
static std::vector<Segment> getSegments(const Kernel &K) {
  std::vector<Segment> Segments;
  if (K.NumGroups) {
    for (unsigned G = 1; G <= K.NumGroups; ++G)
      Segments.push_back({G, {}});
    for (const Task &T : K.Tasks)
      if (T.Group >= 1 && T.Group <= K.NumGroups)
        Segments[T.Group - 1].Tasks.push_back(&T);
    return Segments;
  }
  if (!K.Tasks.empty())
    Segments.push_back({0, {}});
  for (const Task &T : K.Tasks)
    Segments.back().Tasks.push_back(&T);
  return Segments;
}

static void describeTask(const Task &T, llvm::raw_ostream &OS) {
  OS << T.Name << ": " << getTaskKindName(T.Kind);
  for (size_t I = 0; I < T.Extents.size(); ++I) {
    OS << (I ? " x " : " ") << (I < T.IndexVars.size() ? T.IndexVars[I] : "?")
       << " in ";
    printExtent(T.Extents[I], OS);
  }
  if (T.BlockDim)
    OS << " block_dim=" << T.BlockDim;
}

void qdc::kir::printStreamPlan(const Module &M, llvm::raw_ostream &OS) {
  for (const Kernel &K : M.Kernels) {
    OS << "kernel " << K.Name << ": ";
    if (!K.NumGroups) {
      OS << K.Tasks.size() << (K.Tasks.size() == 1 ? " task" : " tasks")
         << ", in order on the launch stream\n";
      for (const Task &T : K.Tasks) {
        OS << "  ";
        describeTask(T, OS);
        OS << " (line " << T.Loc.Line << ")\n";
      }
      continue;
    }
    OS << K.NumGroups << (K.NumGroups == 1 ? " group" : " groups")
       << " run concurrently, " << K.Tasks.size()
       << (K.Tasks.size() == 1 ? " task\n" : " tasks\n");
    OS << "  fork: record an event on the launch stream; the stream of each "
          "group waits on it\n";
    for (const Segment &S : getSegments(K)) {
      OS << "  group " << S.Group << " on stream " << S.Group << ':';
      if (S.Tasks.empty())
        OS << " (empty)";
      OS << '\n';
      for (const Task *T : S.Tasks) {
        OS << "    ";
        describeTask(*T, OS);
        OS << " (line " << T->Loc.Line << ")\n";
      }
    }
    OS << "  join: the launch stream waits on " << K.NumGroups
       << (K.NumGroups == 1 ? " event" : " events") << ", one per group\n";
  }
}

static void dotNode(const Kernel &K, llvm::StringRef Node,
                    llvm::raw_ostream &OS) {
  OS << '"' << K.Name << '.' << Node << '"';
}

void qdc::kir::printStreamPlanDot(const Module &M, llvm::raw_ostream &OS) {
  OS << "digraph stream_plan {\n";
  OS << "  node [shape=box, fontname=\"monospace\"];\n";
  for (const Kernel &K : M.Kernels) {
    OS << "  subgraph \"cluster_" << K.Name << "\" {\n";
    OS << "    label=\"kernel " << K.Name << "\";\n";
    OS << "    ";
    dotNode(K, "launch", OS);
    OS << " [shape=oval, label=\"launch stream\"];\n";
    OS << "    ";
    dotNode(K, "done", OS);
    OS << " [shape=oval, label=\"" << (K.NumGroups ? "join" : "done")
       << "\"];\n";
    if (K.NumGroups) {
      OS << "    ";
      dotNode(K, "launch", OS);
      OS << " [label=\"fork\"];\n";
    }
    std::vector<Segment> Segments = getSegments(K);
    for (const Segment &S : Segments) {
      if (S.Group) {
        OS << "    subgraph \"cluster_" << K.Name << "_g" << S.Group
           << "\" {\n      label=\"group " << S.Group << " (stream " << S.Group
           << ")\";\n";
      }
      for (const Task *T : S.Tasks) {
        std::string Label;
        llvm::raw_string_ostream LS(Label);
        describeTask(*T, LS);
        OS << (S.Group ? "      " : "    ");
        dotNode(K, T->Name, OS);
        OS << " [label=\"" << LS.str() << "\"];\n";
      }
      if (S.Group)
        OS << "    }\n";
      // Stream order: fork -> first task -> ... -> last task -> join.
      std::string Prev = "launch";
      for (const Task *T : S.Tasks) {
        OS << "    ";
        dotNode(K, Prev, OS);
        OS << " -> ";
        dotNode(K, T->Name, OS);
        OS << ";\n";
        Prev = T->Name;
      }
      OS << "    ";
      dotNode(K, Prev, OS);
      OS << " -> ";
      dotNode(K, "done", OS);
      OS << ";\n";
    }
    if (Segments.empty()) {
      OS << "    ";
      dotNode(K, "launch", OS);
      OS << " -> ";
      dotNode(K, "done", OS);
      OS << ";\n";
    }
    OS << "  }\n";
  }
  OS << "}\n";
}
