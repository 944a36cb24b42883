//===- ImageTable.cpp - The device images in the host object --------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The launcher declares the table of images (its size is known before they
// are built); the host object defines it once they are: a private constant
// an image, in the section its vendor's tools read (Targets.def).
//
//===----------------------------------------------------------------------===//

#include "ImageTable.h"
#include "Names.h"

#include "qd/abi.h"
#include "qdc/CodeGen/CodeGen.h"
#include "qdc/Support/Error.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <cstddef>

using namespace qdc;
using namespace qdc::codegen;

/// Data as a private constant named Name, in Kind's section.
static llvm::GlobalVariable *defineData(llvm::Module &Mod, llvm::StringRef Data,
                                        bool Text, ImageKind Kind,
                                        const llvm::Twine &Name) {
  llvm::LLVMContext &Ctx = Mod.getContext();
  auto *G = new llvm::GlobalVariable(
      Mod, llvm::ArrayType::get(llvm::Type::getInt8Ty(Ctx), Data.size() + Text),
      /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantDataArray::getString(Ctx, Data, Text), Name);
  G->setAlignment(llvm::Align(16));
  // A fat binary where its vendor's compilers put theirs, so that their
  // tools find it.
  if (llvm::StringRef Section = getImageKindSection(Kind); !Section.empty()) {
    G->setSection(Section);
    G->setAlignment(llvm::Align(getImageKindAlignment(Kind)));
  }
  return G;
}

// The structs as defineParts lays them out (LLVM's natural alignment on the
// 64-bit hosts qdc runs on).
static_assert(sizeof(qdrt_image_part) == 24 &&
                  offsetof(qdrt_image_part, size) == 8 &&
                  offsetof(qdrt_image_part, symbols) == 16,
              "qdrt_image_part is {ptr, i64, ptr}");
static_assert(sizeof(qdrt_image_parts) == 16 &&
                  offsetof(qdrt_image_parts, parts) == 8,
              "qdrt_image_parts is {i32, ptr}");

/// Image's parts as a qdrt_image_parts: each part's fat binary in the fat
/// binaries' section (where cuobjdump finds them all), and the names it
/// defines.
static llvm::GlobalVariable *
defineParts(llvm::Module &Mod, const DeviceImage &Image, size_t Index) {
  llvm::LLVMContext &Ctx = Mod.getContext();
  llvm::Type *I32 = llvm::Type::getInt32Ty(Ctx);
  llvm::Type *I64 = llvm::Type::getInt64Ty(Ctx);
  llvm::Type *Ptr = llvm::PointerType::getUnqual(Ctx);
  // qdrt_image_part: data, size, symbols; qdrt_image_parts: num_parts,
  // parts.
  auto *PartTy = llvm::StructType::get(Ctx, {Ptr, I64, Ptr});
  auto *PartsTy = llvm::StructType::get(Ctx, {I32, Ptr});
  std::vector<llvm::Constant *> Parts;
  for (size_t P = 0; P < Image.Parts.size(); ++P) {
    const std::string &Data = Image.Parts[P];
    llvm::GlobalVariable *G =
        defineData(Mod, Data, /*Text=*/false, Image.Kind,
                   names::image(Index) + "part" + llvm::Twine(P));
    std::string Symbols;
    for (const std::string &Name : Image.Cut.Symbols[P])
      Symbols += Name + '\0';
    auto *Names = new llvm::GlobalVariable(
        Mod,
        llvm::ArrayType::get(llvm::Type::getInt8Ty(Ctx), Symbols.size() + 1),
        true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantDataArray::getString(Ctx, Symbols), ".qd.symbols");
    Parts.push_back(llvm::ConstantStruct::get(
        PartTy, {G, llvm::ConstantInt::get(I64, Data.size()), Names}));
  }
  auto *ArrayTy = llvm::ArrayType::get(PartTy, Parts.size());
  auto *Array = new llvm::GlobalVariable(
      Mod, ArrayTy, true, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantArray::get(ArrayTy, Parts), ".qd.parts");
  return new llvm::GlobalVariable(
      Mod, PartsTy, true, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantStruct::get(
          PartsTy, {llvm::ConstantInt::get(I32, Parts.size()), Array}),
      names::image(Index));
}

llvm::Error
qdc::codegen::defineImages(llvm::Module &Mod,
                           llvm::ArrayRef<const DeviceImage *> Images) {
  llvm::GlobalVariable *Table =
      Mod.getGlobalVariable(names::Images, /*AllowInternal=*/true);
  if (Images.empty())
    return llvm::Error::success();
  auto *TableTy =
      Table ? llvm::dyn_cast<llvm::ArrayType>(Table->getValueType()) : nullptr;
  auto *ImageTy =
      TableTy ? llvm::dyn_cast<llvm::StructType>(TableTy->getElementType())
              : nullptr;
  llvm::LLVMContext &Ctx = Mod.getContext();
  llvm::Type *I32 = llvm::Type::getInt32Ty(Ctx);
  llvm::Type *I64 = llvm::Type::getInt64Ty(Ctx);
  llvm::Type *Ptr = llvm::PointerType::getUnqual(Ctx);
  // qdrt_image: kind, arch_number, arch, data, size.
  if (!ImageTy || TableTy->getNumElements() != Images.size() ||
      ImageTy->elements() !=
          llvm::ArrayRef<llvm::Type *>{I32, I32, Ptr, Ptr, I64})
    return makeError("the launcher's image table is not the " +
                     std::to_string(Images.size()) +
                     " images qdc built (an internal error)");
  std::vector<llvm::Constant *> Entries;
  for (size_t I = 0; I < Images.size(); ++I) {
    const DeviceImage &Image = *Images[I];
    unsigned Kind = getImageKindNumber(Image.Kind);
    llvm::GlobalVariable *Data;
    uint64_t Size;
    if (Image.Parts.empty()) {
      // Text (PTX): its terminating NUL is part of the image.
      bool Text = isTextImage(Image.Kind);
      Data = defineData(Mod, Image.Data, Text, Image.Kind, names::image(I));
      Size = Image.Data.size() + Text;
    } else {
      Data = defineParts(Mod, Image, I);
      Kind = QDRT_IMAGE_FATBIN_PARTS;
      Size = sizeof(qdrt_image_parts);
    }
    auto *Arch = new llvm::GlobalVariable(
        Mod,
        llvm::ArrayType::get(llvm::Type::getInt8Ty(Ctx), Image.Arch.size() + 1),
        true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantDataArray::getString(Ctx, Image.Arch), ".qd.arch");
    Arch->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    Entries.push_back(llvm::ConstantStruct::get(
        ImageTy, {llvm::ConstantInt::get(I32, Kind),
                  llvm::ConstantInt::get(I32, Image.ArchNumber), Arch, Data,
                  llvm::ConstantInt::get(I64, Size)}));
  }
  Table->setInitializer(llvm::ConstantArray::get(TableTy, Entries));
  Table->setConstant(true);
  Table->setLinkage(llvm::GlobalValue::InternalLinkage);
  return llvm::Error::success();
}
