//===- PtxParts.cpp - A large PTX module cut into parts -------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The module is read as its header (up to `.address_size`) and a list of
// top-level items: an item ends at a `;` outside braces and parentheses, or,
// for an entry or a function, at the brace that closes its body. Each item
// keeps the comments and blank lines before it. Each item is joined
// (union-find) with the definition of every name it uses, but for a weak
// `.shared` array or a string literal that uses no other name (repeated
// where it is used). The
// plan joins, across every architecture's PTX, the names each group holds
// that the runtime looks up (entries and visible variables), and lays the
// joined names out in parts in the order of their entries; each PTX's
// groups then go to the part of their names.
//
//===----------------------------------------------------------------------===//

#include "PtxParts.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <numeric>

using namespace qdc;
using namespace qdc::codegen;

namespace {

enum class ItemKind { Entry, Function, Variable };

/// As the item spells it before its kind: nothing, `.visible`, `.weak` or
/// `.common`, `.extern`.
enum class Linkage { Local, Visible, Weak, Extern };

struct Item {
  /// The item's text, with the comments before it: [Begin, End).
  size_t Begin = 0, End = 0;
  /// Its code: from Code, and up to HeadEnd before its body or initializer
  /// (or its `;`).
  size_t Code = 0, HeadEnd = 0;
  ItemKind Kind = ItemKind::Variable;
  Linkage Link = Linkage::Local;
  bool HasBody = false;
  bool InSharedSpace = false; ///< a `.shared` variable
  llvm::StringRef Name;
  /// The names it uses, once each, but its own.
  llvm::SmallVector<llvm::StringRef, 4> Uses;

  bool isDefinition() const {
    if (Link == Linkage::Extern)
      return false;
    return Kind == ItemKind::Variable || HasBody;
  }
};

bool isIdentifierStart(char C) {
  return llvm::isAlpha(C) || C == '_' || C == '$' || C == '%' || C == '.';
}
bool isIdentifierChar(char C) {
  return llvm::isAlnum(C) || C == '_' || C == '$';
}

constexpr size_t NoEnd = llvm::StringRef::npos;

/// Where the comment (or, with Strings, the string) that starts at I in
/// Text ends, one past it: I when none starts there, NoEnd when it does not
/// end.
size_t skipComment(llvm::StringRef Text, size_t I, bool Strings) {
  llvm::StringRef Rest = Text.substr(I);
  if (Rest.starts_with("//")) {
    size_t Eol = Text.find('\n', I);
    return Eol == NoEnd ? Text.size() : Eol + 1;
  }
  if (Rest.starts_with("/*")) {
    size_t Close = Text.find("*/", I + 2);
    return Close == NoEnd ? NoEnd : Close + 2;
  }
  if (!Strings || !Rest.starts_with("\""))
    return I;
  size_t J = I + 1;
  while (J < Text.size() && Text[J] != '"')
    J += Text[J] == '\\' ? 2 : 1;
  return J >= Text.size() ? NoEnd : J + 1;
}

/// Calls Fn with each token of Text that is a name or a directive, leaving
/// out comments and strings; false when a comment or string does not end.
template <typename FnT> bool forEachToken(llvm::StringRef Text, FnT Fn) {
  for (size_t I = 0; I < Text.size();) {
    char C = Text[I];
    if (size_t After = skipComment(Text, I, /*Strings=*/true); After != I) {
      if (After == NoEnd)
        return false;
      I = After;
    } else if (llvm::isDigit(C)) {
      while (I < Text.size() && isIdentifierChar(Text[I]))
        ++I; // a number, with its suffix
    } else if (isIdentifierStart(C)) {
      size_t J = I + 1;
      while (J < Text.size() && isIdentifierChar(Text[J]))
        ++J;
      Fn(Text.slice(I, J), I);
      I = J;
    } else {
      ++I;
    }
  }
  return true;
}

/// The module after its header, read as items; false when it is not in
/// the shape described above.
class ItemReader {
public:
  ItemReader(llvm::StringRef Ptx, size_t From) : Ptx(Ptx), At(From) {}

  bool read(std::vector<Item> &Items) {
    size_t Begin = At;
    while (true) {
      size_t Code = skipSpaceAndComments();
      if (Code == NoEnd)
        return false;
      if (Code >= Ptx.size())
        return true; // what follows the last item is comments only
      Item It;
      It.Begin = Begin;
      It.Code = Code;
      if (!readItem(It) || !readHead(It))
        return false;
      Begin = It.End;
      Items.push_back(std::move(It));
    }
  }

private:
  /// Moves At past blanks and comments: where code starts, Ptx.size() at
  /// the end, NoEnd in an unended comment.
  size_t skipSpaceAndComments() {
    while (At < Ptx.size()) {
      if (llvm::isSpace(Ptx[At])) {
        ++At;
        continue;
      }
      size_t After = skipComment(Ptx, At, /*Strings=*/false);
      if (After == At || After == NoEnd)
        return After;
      At = After;
    }
    return At;
  }

  /// Finds where It ends (and its head).
  bool readItem(Item &It) {
    int Braces = 0, Parens = 0;
    bool Head = true, Callable = false;
    for (size_t I = It.Code; I < Ptx.size(); ++I) {
      char C = Ptx[I];
      if (size_t After = skipComment(Ptx, I, /*Strings=*/true); After != I) {
        if (After == NoEnd)
          return false;
        I = After - 1;
      } else if (C == '(') {
        ++Parens;
      } else if (C == ')') {
        if (--Parens < 0)
          return false;
      } else if (C == '{') {
        if (Braces == 0 && Parens == 0 && Head) {
          It.HeadEnd = I;
          Head = false;
          llvm::StringRef HeadText = Ptx.slice(It.Code, I);
          forEachToken(HeadText, [&](llvm::StringRef T, size_t) {
            Callable |= T == ".entry" || T == ".func";
          });
          It.HasBody = Callable;
        }
        ++Braces;
      } else if (C == '}') {
        if (--Braces < 0)
          return false;
        if (Braces == 0 && Parens == 0 && Callable) {
          At = It.End = I + 1;
          return true;
        }
      } else if (C == '=' && Braces == 0 && Parens == 0 && Head) {
        It.HeadEnd = I;
        Head = false;
      } else if (C == ';' && Braces == 0 && Parens == 0) {
        if (Head)
          It.HeadEnd = I;
        At = It.End = I + 1;
        return true;
      }
    }
    return false;
  }

  /// Reads It's linkage, kind and name from its head, and the names its
  /// code uses.
  bool readHead(Item &It) {
    llvm::StringRef HeadText = Ptx.slice(It.Code, It.HeadEnd);
    std::optional<ItemKind> Kind;
    bool OK = true;
    size_t KindEnd = 0;
    forEachToken(HeadText, [&](llvm::StringRef T, size_t Pos) {
      if (Kind || !OK)
        return;
      if (T == ".extern")
        It.Link = Linkage::Extern;
      else if (T == ".visible")
        It.Link = Linkage::Visible;
      else if (T == ".weak" || T == ".common")
        It.Link = Linkage::Weak;
      else if (T == ".entry")
        Kind = ItemKind::Entry;
      else if (T == ".func")
        Kind = ItemKind::Function;
      else if (T == ".global" || T == ".const" || T == ".shared") {
        Kind = ItemKind::Variable;
        It.InSharedSpace = T == ".shared";
      } else
        OK = false; // .file, .section, .alias, ...: not cut
      KindEnd = Pos + T.size();
    });
    if (!OK || !Kind)
      return false;
    It.Kind = *Kind;
    // The name: for a function, after its return parameters, if any; for
    // a variable, after its state space, alignment and type.
    llvm::StringRef After = HeadText.substr(KindEnd).ltrim();
    if (It.Kind != ItemKind::Variable && After.starts_with("(")) {
      size_t Close = After.find(')');
      if (Close == NoEnd)
        return false;
      After = After.substr(Close + 1);
    }
    forEachToken(After, [&](llvm::StringRef T, size_t) {
      if (It.Name.empty() && !T.starts_with(".") && !T.starts_with("%"))
        It.Name = T;
    });
    if (It.Name.empty())
      return false;
    llvm::StringRef CodeText = Ptx.slice(It.Code, It.End);
    llvm::DenseSet<llvm::StringRef> Seen;
    return forEachToken(CodeText, [&](llvm::StringRef T, size_t) {
      if (T.starts_with(".") || T.starts_with("%") || T == It.Name)
        return;
      if (Seen.insert(T).second)
        It.Uses.push_back(T);
    });
  }

  llvm::StringRef Ptx;
  size_t At;
};

/// Union-find over item numbers.
class Groups {
public:
  explicit Groups(size_t N) : Parent(N) {
    std::iota(Parent.begin(), Parent.end(), 0);
  }
  size_t find(size_t X) {
    while (Parent[X] != X)
      X = Parent[X] = Parent[Parent[X]];
    return X;
  }
  void join(size_t A, size_t B) {
    A = find(A);
    B = find(B);
    if (A != B)
      Parent[std::max(A, B)] = std::min(A, B);
  }

private:
  std::vector<size_t> Parent;
};

/// A PTX module read as items and grouped: items of one group go to one
/// part.
struct GroupedPtx {
  llvm::StringRef Header;
  std::vector<Item> Items;
  Groups G{0};
  /// The items each item needs besides its group: declarations of what the
  /// module does not define (`.extern`) and weak shared arrays, repeated in
  /// each part that needs them.
  std::vector<llvm::SmallVector<size_t, 2>> Needs;
  std::vector<bool> Repeated, External;
  /// A variable the rules have every part define for itself.
  std::vector<bool> EveryPart;

  /// An entry, or a variable the runtime may look up (a field, the assert
  /// record).
  bool isLookedUp(size_t I) const {
    const Item &It = Items[I];
    return It.isDefinition() && !EveryPart[I] &&
           (It.Kind == ItemKind::Entry ||
            (It.Kind == ItemKind::Variable && It.Link == Linkage::Visible));
  }
};

/// A string literal: a local `.global` array of bytes named as Clang names
/// string literals (`.str`, `.str.1`) once LLVM's NVPTX back end has made
/// the name PTX's (`$str`, `_$_str`, then digits, maybe after `_$_`; ""
/// has no initializer, being zeros). Constant, so that a copy in each part
/// that reads it is the same: kernels sharing an assertion's message or a
/// printf format need not share a part.
bool isStringLiteral(const Item &It, llvm::StringRef Ptx) {
  if (It.Kind != ItemKind::Variable || It.Link != Linkage::Local ||
      It.InSharedSpace)
    return false;
  llvm::StringRef Rest = It.Name;
  if (!Rest.consume_front("$str") && !Rest.consume_front("_$_str"))
    return false;
  Rest.consume_front("_$_");
  bool Bytes = false;
  forEachToken(Ptx.slice(It.Code, It.HeadEnd),
               [&](llvm::StringRef T, size_t) { Bytes |= T == ".b8"; });
  return Bytes && llvm::all_of(Rest, llvm::isDigit);
}

std::optional<GroupedPtx> readGroups(llvm::StringRef Ptx,
                                     const CutRules &Rules) {
  GroupedPtx M;
  // The header: .version, .target and .address_size, with their comments.
  size_t Size = Ptx.find("\n.address_size");
  if (Size == NoEnd)
    return std::nullopt;
  size_t HeaderEnd = Ptx.find('\n', Size + 1);
  if (HeaderEnd == NoEnd)
    return std::nullopt;
  M.Header = Ptx.take_front(HeaderEnd + 1);
  if (!M.Header.contains("\n.version") || !M.Header.contains("\n.target"))
    return std::nullopt;
  std::vector<Item> &Items = M.Items;
  if (!ItemReader(Ptx, HeaderEnd + 1).read(Items))
    return std::nullopt;

  // Each name's definition, and its declarations.
  llvm::StringMap<size_t> Definition;
  llvm::StringMap<llvm::SmallVector<size_t, 1>> Declarations;
  for (size_t I = 0; I < Items.size(); ++I) {
    if (!Items[I].isDefinition()) {
      Declarations[Items[I].Name].push_back(I);
      continue;
    }
    if (!Definition.try_emplace(Items[I].Name, I).second)
      return std::nullopt; // one name defined twice
  }
  // A weak shared array (a static of an inline function: a reduction's) is
  // per block in any module: defined in each part that uses it, as it is
  // in each translation unit.
  M.Repeated.assign(Items.size(), false);
  M.External.assign(Items.size(), false);
  M.EveryPart.assign(Items.size(), false);
  for (size_t I = 0; I < Items.size(); ++I) {
    const Item &It = Items[I];
    M.External[I] = !It.isDefinition() && !Definition.count(It.Name);
    bool Standalone = It.isDefinition() && It.Kind == ItemKind::Variable &&
                      llvm::none_of(It.Uses, [&](llvm::StringRef N) {
                        return Definition.count(N) || Declarations.count(N);
                      });
    M.Repeated[I] =
        Standalone && ((It.InSharedSpace && It.Link == Linkage::Weak) ||
                       isStringLiteral(It, Ptx));
    M.EveryPart[I] = Standalone && llvm::is_contained(Rules.EachPart, It.Name);
  }
  M.G = Groups(Items.size());
  M.Needs.resize(Items.size());
  for (size_t I = 0; I < Items.size(); ++I) {
    const Item &It = Items[I];
    if (!It.isDefinition()) {
      // A declaration goes with its definition when there is one.
      if (auto D = Definition.find(It.Name); D != Definition.end())
        M.G.join(I, D->second);
      continue;
    }
    for (llvm::StringRef N : It.Uses) {
      if (auto D = Definition.find(N); D != Definition.end()) {
        if (M.Repeated[D->second] || M.EveryPart[D->second])
          M.Needs[I].push_back(D->second);
        else
          M.G.join(I, D->second);
        continue;
      }
      if (auto Decls = Declarations.find(N); Decls != Declarations.end())
        llvm::append_range(M.Needs[I], Decls->second);
    }
  }
  return M;
}

} // namespace

std::optional<ModuleCut>
qdc::codegen::planPtxCut(llvm::ArrayRef<llvm::StringRef> Ptxs,
                         unsigned EntriesPerPart, const CutRules &Rules) {
  if (EntriesPerPart == 0 || Ptxs.empty())
    return std::nullopt;
  std::vector<GroupedPtx> Modules;
  // The names looked up, in the order they first appear, and which are
  // entries.
  llvm::StringMap<size_t> Id;
  std::vector<llvm::StringRef> Names;
  std::vector<bool> IsEntry;
  // The variables every part defines, in the rules' order.
  std::vector<std::string> Everywhere;
  for (llvm::StringRef Ptx : Ptxs) {
    std::optional<GroupedPtx> M = readGroups(Ptx, Rules);
    if (!M)
      return std::nullopt;
    for (size_t I = 0; I < M->Items.size(); ++I) {
      if (M->EveryPart[I] && !llvm::is_contained(Everywhere, M->Items[I].Name))
        Everywhere.push_back(M->Items[I].Name.str());
      if (!M->isLookedUp(I))
        continue;
      auto [It, New] = Id.try_emplace(M->Items[I].Name, Names.size());
      if (New) {
        Names.push_back(M->Items[I].Name);
        IsEntry.push_back(false);
      }
      IsEntry[It->second] =
          IsEntry[It->second] || M->Items[I].Kind == ItemKind::Entry;
    }
    Modules.push_back(std::move(*M));
  }
  // Names that one module's group holds together are together in all.
  Groups Together(Names.size());
  for (GroupedPtx &M : Modules) {
    constexpr size_t None = ~size_t(0);
    std::vector<size_t> First(M.Items.size(), None);
    for (size_t I = 0; I < M.Items.size(); ++I) {
      if (!M.isLookedUp(I))
        continue;
      size_t &F = First[M.G.find(I)];
      size_t N = Id.find(M.Items[I].Name)->second;
      if (F == None)
        F = N;
      else
        Together.join(F, N);
    }
  }
  // The joined names, in the order of their first entry, fill the parts;
  // those without an entry (a field no code uses) go to the first.
  std::vector<size_t> EntriesOf(Names.size(), 0);
  for (size_t N = 0; N < Names.size(); ++N)
    if (IsEntry[N])
      ++EntriesOf[Together.find(N)];
  constexpr size_t None = ~size_t(0);
  std::vector<size_t> PartOf(Names.size(), None);
  std::vector<size_t> PartEntries;
  for (size_t N = 0; N < Names.size(); ++N) {
    size_t R = Together.find(N);
    if (!IsEntry[N] || PartOf[R] != None)
      continue;
    if (PartEntries.empty() ||
        (PartEntries.back() &&
         PartEntries.back() + EntriesOf[R] > EntriesPerPart))
      PartEntries.push_back(0);
    PartOf[R] = PartEntries.size() - 1;
    PartEntries.back() += EntriesOf[R];
  }
  if (PartEntries.size() < 2)
    return std::nullopt;
  ModuleCut Cut;
  Cut.Rules = Rules;
  Cut.Symbols.resize(PartEntries.size());
  for (size_t N = 0; N < Names.size(); ++N) {
    size_t P = PartOf[Together.find(N)];
    Cut.Symbols[P == None ? 0 : P].push_back(Names[N].str());
  }
  for (const std::string &Rule : Rules.EachPart)
    if (llvm::is_contained(Everywhere, Rule))
      for (std::vector<std::string> &Part : Cut.Symbols)
        Part.push_back(Rule);
  return Cut;
}

std::optional<std::vector<std::string>>
qdc::codegen::cutPtx(llvm::StringRef Ptx, const ModuleCut &Cut) {
  const CutRules &Rules = Cut.Rules;
  std::optional<GroupedPtx> M = readGroups(Ptx, Rules);
  if (!M || Cut.Symbols.size() < 2)
    return std::nullopt;
  llvm::StringMap<size_t> PartOfName;
  for (size_t P = 0; P < Cut.Symbols.size(); ++P)
    for (const std::string &Name : Cut.Symbols[P])
      if (!llvm::is_contained(Rules.EachPart, Name))
        PartOfName[Name] = P;
  const std::vector<Item> &Items = M->Items;
  // Each group's part, from the names it holds: all in one part, each in
  // the cut; a group without such a name goes to the first part.
  constexpr size_t None = ~size_t(0);
  std::vector<size_t> GroupPart(Items.size(), None);
  for (size_t I = 0; I < Items.size(); ++I) {
    if (!M->isLookedUp(I))
      continue;
    auto Found = PartOfName.find(Items[I].Name);
    if (Found == PartOfName.end())
      return std::nullopt;
    size_t &P = GroupPart[M->G.find(I)];
    if (P != None && P != Found->second)
      return std::nullopt;
    P = Found->second;
  }
  std::vector<size_t> PartOf(Items.size());
  for (size_t I = 0; I < Items.size(); ++I) {
    size_t P = GroupPart[M->G.find(I)];
    PartOf[I] = P == None ? 0 : P;
  }
  // The parts that need each repeated item.
  std::vector<llvm::SmallVector<size_t, 2>> NeededIn(Items.size());
  for (size_t I = 0; I < Items.size(); ++I)
    for (size_t D : M->Needs[I])
      if (!llvm::is_contained(NeededIn[D], PartOf[I]))
        NeededIn[D].push_back(PartOf[I]);

  std::vector<std::string> Parts(Cut.Symbols.size(), M->Header.str());
  for (size_t I = 0; I < Items.size(); ++I) {
    const Item &It = Items[I];
    llvm::StringRef Text = Ptx.slice(It.Begin, It.End);
    bool Extern = M->External[I];
    if (M->EveryPart[I]) {
      for (std::string &Part : Parts)
        Part += Text;
      continue;
    }
    if (!Extern && !M->Repeated[I]) {
      Parts[PartOf[I]] += Text;
      continue;
    }
    // A repeated item no part uses stays in the first.
    for (size_t P = 0; P < Parts.size(); ++P)
      if (llvm::is_contained(NeededIn[I], P) ||
          (P == 0 && NeededIn[I].empty() && !Extern))
        Parts[P] += Text;
  }
  for (std::string &Part : Parts)
    Part += "\n";
  return Parts;
}
