//===- StreamPlan.cpp - What runs where, and when -------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The --emit=stream-plan dumps: for each kernel, which tasks run
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

/// The top-level statements of group G (in a block numbered G).
static void getGroupStmts(const std::vector<Stmt> &List, unsigned G,
                          std::vector<const Stmt *> &Out) {
  for (const Stmt &S : List)
    if (S.Kind == StmtKind::Block && S.Group == G)
      for (const Stmt &Inner : S.Body)
        Out.push_back(&Inner);
}

/// "field sink[0..127]": an array, and the bounding box of the elements
/// the accesses reach when every index of every one is known.
static std::string describeSet(
    const std::vector<std::pair<const MemoryAccess *, const Stmt *>> &Uses) {
  const MemoryAccess &First = *Uses.front().first;
  std::string Out = First.Name;
  std::vector<std::optional<IndexRange>> Box;
  bool Known = true;
  for (auto [A, S] : Uses) {
    std::vector<std::optional<IndexRange>> R = getIndexRanges(*A, *S);
    if (R.empty() || (!Box.empty() && R.size() != Box.size())) {
      Known = false;
      break;
    }
    if (Box.empty())
      Box = R;
    for (size_t D = 0; D < R.size(); ++D) {
      if (!R[D] || !Box[D]) {
        Box[D].reset();
        continue;
      }
      Box[D] = IndexRange{std::min(Box[D]->Lo, R[D]->Lo),
                          std::max(Box[D]->Hi, R[D]->Hi)};
    }
  }
  if (!Known || Box.empty())
    return Out;
  Out += '[';
  for (size_t D = 0; D < Box.size(); ++D) {
    Out += D ? ", " : "";
    Out += Box[D]
               ? std::to_string(Box[D]->Lo) + ".." + std::to_string(Box[D]->Hi)
               : "?";
  }
  return Out + ']';
}

/// "    reads: in; writes: sink[0..127]; atomic: counter" for group G.
static void describeAccesses(const Kernel &K, unsigned G,
                             llvm::raw_ostream &OS) {
  std::vector<const Stmt *> Stmts;
  getGroupStmts(K.Body, G, Stmts);
  const char *Kinds[] = {"reads", "writes", "atomic"};
  bool Any = false;
  for (int Kind = 0; Kind < 3; ++Kind) {
    // Per array, in order of first use.
    std::vector<std::vector<std::pair<const MemoryAccess *, const Stmt *>>>
        Sets;
    for (const Stmt *S : Stmts)
      for (const MemoryAccess &A : S->Memory) {
        int Of = A.Atomic ? 2 : A.Write ? 1 : 0;
        if (Of != Kind)
          continue;
        auto It = std::find_if(Sets.begin(), Sets.end(), [&](auto &Set) {
          return Set.front().first->Name == A.Name &&
                 Set.front().first->On == A.On;
        });
        if (It == Sets.end())
          Sets.push_back({{&A, S}});
        else
          It->push_back({&A, S});
      }
    if (Sets.empty())
      continue;
    OS << (Any ? "; " : "    ") << Kinds[Kind] << ": ";
    for (size_t I = 0; I < Sets.size(); ++I)
      OS << (I ? ", " : "") << describeSet(Sets[I]);
    Any = true;
  }
  if (Any)
    OS << '\n';
}

static void describeTask(const Task &T, llvm::raw_ostream &OS) {
  OS << T.Name << ": " << getTaskKindName(T.Kind);
  for (size_t I = 0; I < T.Extents.size(); ++I) {
    OS << (I ? " x " : " ") << (I < T.IndexVars.size() ? T.IndexVars[I] : "?")
       << " in ";
    printExtent(T.Extents[I], OS);
  }
  if (T.BlockDim)
    OS << " block_dim=" << formatBlockDim(T.BlockDim, T.BlockShape);
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
    auto Around = [&](bool BeforeFork) {
      bool Seen = false;
      for (const Task &T : K.Tasks) {
        Seen |= T.Group != 0;
        if (T.Group != 0 || Seen == BeforeFork)
          continue;
        OS << "    ";
        describeTask(T, OS);
        OS << " (line " << T.Loc.Line << ")\n";
      }
    };
    if (K.Tasks.size() && K.Tasks.front().Group == 0) {
      OS << "  before the fork, on the launch stream:\n";
      Around(/*BeforeFork=*/true);
    }
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
      describeAccesses(K, S.Group, OS);
    }
    OS << "  join: the launch stream waits on " << K.NumGroups
       << (K.NumGroups == 1 ? " event" : " events") << ", one per group\n";
    if (K.Tasks.size() > 1 && K.Tasks.back().Group == 0) {
      OS << "  after the join, on the launch stream:\n";
      Around(/*BeforeFork=*/false);
    }
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
