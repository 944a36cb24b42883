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
// (union-find) with the definition of every name it uses, but for a
// variable that uses no other name and is visible (declared where it is
// used) or weak (repeated where it is used); the groups are then laid out
// in parts in the order of their entries.
//
//===----------------------------------------------------------------------===//

#include "PtxParts.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <numeric>

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
      else if (T == ".global" || T == ".const" || T == ".shared")
        Kind = ItemKind::Variable;
      else
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

} // namespace

std::optional<std::vector<std::string>>
qdc::codegen::splitPtx(llvm::StringRef Ptx, unsigned EntriesPerPart) {
  // The header: .version, .target and .address_size, with their comments.
  size_t Size = Ptx.find("\n.address_size");
  if (Size == NoEnd || EntriesPerPart == 0)
    return std::nullopt;
  size_t HeaderEnd = Ptx.find('\n', Size + 1);
  if (HeaderEnd == NoEnd)
    return std::nullopt;
  llvm::StringRef Header = Ptx.take_front(HeaderEnd + 1);
  if (!Header.contains("\n.version") || !Header.contains("\n.target"))
    return std::nullopt;
  std::vector<Item> Items;
  if (!ItemReader(Ptx, HeaderEnd + 1).read(Items))
    return std::nullopt;
  size_t NumEntries = llvm::count_if(
      Items, [](const Item &It) { return It.Kind == ItemKind::Entry; });
  if (NumEntries <= EntriesPerPart)
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
  // A variable whose own text uses no other name, of external linkage, is
  // shared between parts: defined in one, declared in the others; of weak
  // linkage (a static of an inline function: a reduction's shared array),
  // it is defined in each part that uses it, as one is per translation
  // unit, and nvlink keeps one.
  auto IsStandalone = [&](size_t D, Linkage L) {
    const Item &It = Items[D];
    return It.Kind == ItemKind::Variable && It.Link == L &&
           llvm::none_of(It.Uses, [&](llvm::StringRef N) {
             return Definition.count(N) || Declarations.count(N);
           });
  };
  auto IsShared = [&](size_t D) {
    return IsStandalone(D, Linkage::Visible);
  };
  auto IsRepeated = [&](size_t D) { return IsStandalone(D, Linkage::Weak); };
  Groups G(Items.size());
  // What each item needs besides its group: declarations and shared
  // variables.
  std::vector<llvm::SmallVector<size_t, 2>> Needs(Items.size());
  for (size_t I = 0; I < Items.size(); ++I) {
    const Item &It = Items[I];
    if (!It.isDefinition()) {
      // A declaration goes with its definition when there is one.
      if (auto D = Definition.find(It.Name); D != Definition.end())
        G.join(I, D->second);
      continue;
    }
    for (llvm::StringRef N : It.Uses) {
      if (auto D = Definition.find(N); D != Definition.end()) {
        if (IsShared(D->second) || IsRepeated(D->second))
          Needs[I].push_back(D->second);
        else
          G.join(I, D->second);
        continue;
      }
      if (auto Decls = Declarations.find(N); Decls != Declarations.end())
        llvm::append_range(Needs[I], Decls->second);
    }
  }

  // The groups, in the order of their first entry, fill the parts.
  std::vector<size_t> EntriesOf(Items.size(), 0);
  for (size_t I = 0; I < Items.size(); ++I)
    if (Items[I].Kind == ItemKind::Entry)
      ++EntriesOf[G.find(I)];
  constexpr size_t None = ~size_t(0);
  std::vector<size_t> PartOfGroup(Items.size(), None);
  std::vector<size_t> PartEntries;
  for (size_t I = 0; I < Items.size(); ++I) {
    size_t R = G.find(I);
    if (Items[I].Kind != ItemKind::Entry || PartOfGroup[R] != None)
      continue;
    if (PartEntries.empty() ||
        (PartEntries.back() && PartEntries.back() + EntriesOf[R] >
                                   EntriesPerPart))
      PartEntries.push_back(0);
    PartOfGroup[R] = PartEntries.size() - 1;
    PartEntries.back() += EntriesOf[R];
  }
  if (PartEntries.size() < 2)
    return std::nullopt;
  // Where each item is defined: its group's part; a group without an
  // entry, in the first part; a shared variable, in the part of its first
  // user (or the first part).
  std::vector<size_t> PartOf(Items.size(), 0);
  std::vector<bool> Shared(Items.size(), false);
  for (size_t I = 0; I < Items.size(); ++I) {
    size_t P = PartOfGroup[G.find(I)];
    PartOf[I] = P == None ? 0 : P;
  }
  // `.visible .global .align 4 .b8 x[4]` is declared where it is used as
  // `.extern .global .align 4 .b8 x[4];`.
  std::vector<std::string> SharedDecl(Items.size());
  for (size_t I = 0; I < Items.size(); ++I)
    if (Items[I].isDefinition() && IsShared(I)) {
      Shared[I] = true;
      PartOf[I] = None;
      std::string &Decl = SharedDecl[I];
      Decl = Ptx.slice(Items[I].Code, Items[I].HeadEnd).rtrim().str();
      size_t At = Decl.find(".visible");
      if (At == std::string::npos)
        return std::nullopt;
      Decl = "\n" + Decl.replace(At, 8, ".extern") + ";";
    }
  // The parts that need each declaration or shared variable.
  std::vector<llvm::SmallVector<size_t, 2>> NeededIn(Items.size());
  for (size_t I = 0; I < Items.size(); ++I)
    for (size_t D : Needs[I]) {
      size_t P = PartOf[I] == None ? 0 : PartOf[I];
      if (Shared[D] && PartOf[D] == None)
        PartOf[D] = P;
      if (!llvm::is_contained(NeededIn[D], P))
        NeededIn[D].push_back(P);
    }
  for (size_t I = 0; I < Items.size(); ++I)
    if (PartOf[I] == None)
      PartOf[I] = 0; // a shared variable no item uses

  std::vector<std::string> Parts(PartEntries.size(), Header.str());
  for (size_t I = 0; I < Items.size(); ++I) {
    const Item &It = Items[I];
    llvm::StringRef Text = Ptx.slice(It.Begin, It.End);
    bool IsDeclaration =
        !It.isDefinition() && !Definition.count(It.Name); // extern
    bool Repeated = It.isDefinition() && IsRepeated(I);
    for (size_t P = 0; P < Parts.size(); ++P) {
      bool Needed = llvm::is_contained(NeededIn[I], P);
      if (IsDeclaration || Repeated) {
        if (Needed || (Repeated && P == 0 && NeededIn[I].empty()))
          Parts[P] += Text;
      } else if (PartOf[I] == P) {
        Parts[P] += Text;
      } else if (Shared[I] && Needed) {
        Parts[P] += SharedDecl[I];
      }
    }
  }
  for (std::string &Part : Parts)
    Part += "\n";
  return Parts;
}
