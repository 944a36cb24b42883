//===- CodeGen.cpp - KIR to every generated artifact ----------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The order of work: the sources and the header; the device IR
// when that is all that was asked; else an image per --offload-arch, made
// by its target's hooks (PTX for NVIDIA, HSACO for AMD); native code beside
// the images whose target makes it (SASS beside PTX when ptxas is found);
// the launcher source with every image embedded; the host object. Nothing
// here depends on which targets exist.
//
//===----------------------------------------------------------------------===//

#include "qdc/CodeGen/CodeGen.h"

#include "Compiler.h"
#include "Names.h"
#include "SourceGen.h"

#include "qdc/Support/DeepStack.h"
#include "qdc/Support/Diagnostic.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>

using namespace qdc;
using namespace qdc::codegen;

std::string qdc::getGeneratedNamespace(llvm::StringRef InputFile,
                                       llvm::StringRef Override) {
  return names::getNamespace(InputFile, Override);
}

llvm::Error qdc::checkGeneratedNamespace(llvm::StringRef Name) {
  return names::checkNamespace(Name);
}

llvm::StringRef
qdc::getDeviceSourceExtension(llvm::ArrayRef<OffloadTarget> Targets) {
  return getHooksForDeviceSource(Targets).getSourceExtension();
}

struct EarlyHostCompile::State {
  State(const Toolchain &Tools, const CodeGenOptions &Opts, size_t Capacity)
      : C(Tools, Opts.InputPath, Opts.Warnings), Late(Capacity),
        SyntaxOnly(Opts.Stage == CodeGenStage::Check) {}
  Compiler C;
  LateSource Late;
  const bool SyntaxOnly;
  bool Handed = false;
  std::unique_ptr<HostIR> Host;
  /// Joined before the rest is destroyed.
  std::optional<DeepStackThread> Worker;
};

EarlyHostCompile::EarlyHostCompile(std::unique_ptr<State> S)
    : S(std::move(S)) {}

EarlyHostCompile::~EarlyHostCompile() {
  if (!S->Handed)
    S->Late.abandon();
  S->Worker.reset();
}

/// Whether the host code compiles on a thread of its own beside the device
/// code: with more than one thread, when there is device code and nothing
/// is echoed as it runs.
static bool isHostBeside(const CodeGenOptions &Opts, const Toolchain &Tools) {
  const ToolchainOptions &TO = Tools.getOptions();
  return Tools.getThreads() > 1 && !Opts.Targets.empty() && !TO.Verbose &&
         !TO.PrintCommandsOnly;
}

std::unique_ptr<EarlyHostCompile>
qdc::beginHostCompile(const CodeGenOptions &Opts, const Toolchain &Tools,
                      size_t InputBytes) {
  if ((Opts.Stage != CodeGenStage::Object &&
       Opts.Stage != CodeGenStage::Check) ||
      !isHostBeside(Opts, Tools))
    return nullptr;
  // The launcher is the .qd's code with each kernel's tasks, their
  // arguments and descriptors: 10-16 times the .qd in test/ (reduce.qd 16,
  // a file of 1,000 kernels 11.6). One that does not fit is compiled as
  // without this; the spaces left over cost the lexer little.
  size_t Capacity = InputBytes * 32 + (size_t(64) << 10);
  auto S = std::make_unique<EarlyHostCompile::State>(Tools, Opts, Capacity);
  EarlyHostCompile::State &St = *S;
  St.Worker.emplace(
      [&St] { St.Host = St.C.compileHostIR(St.Late, St.SyntaxOnly); });
  return std::make_unique<EarlyHostCompile>(std::move(S));
}

namespace {

class ArtifactBuilder {
public:
  ArtifactBuilder(const kir::Module &M, const CodeGenOptions &Opts,
                  const Toolchain &Tools)
      : M(M), Opts(Opts), Tools(Tools),
        C(Tools, Opts.InputPath, Opts.Warnings) {}

  llvm::Expected<Artifacts> run() {
    Out.DeviceSource = deviceSource(getHooksForDeviceSource(Opts.Targets));
    Out.Header = generateHeader(M, Opts.Namespace, Opts.InputPath);
    if (Opts.Stage == CodeGenStage::Check) {
      if (llvm::Error E = checkSources())
        return std::move(E);
      return std::move(Out);
    }
    if (Opts.Stage == CodeGenStage::Sources)
      return std::move(Out);
    if (Opts.Stage == CodeGenStage::DeviceIR) {
      if (llvm::Error E = buildDeviceIR())
        return std::move(E);
      return std::move(Out);
    }
    std::vector<ImageJob> Jobs = planImages();
    if (Opts.Stage == CodeGenStage::Images) {
      llvm::erase_if(Jobs, [](const ImageJob &J) { return J.From >= 0; });
      if (llvm::Error E = buildImages(Jobs))
        return std::move(E);
      return std::move(Out);
    }
    // The launcher declares the images; they are defined in the object.
    std::vector<Embedded> Table = planEmbedded(Jobs);
    std::vector<DeviceImage> Planned;
    for (const Embedded &E : Table)
      Planned.push_back(E.Image);
    Out.LauncherSource =
        generateLauncherSource(M, Opts.Namespace, Opts.InputPath, Planned);
    if (Opts.Stage == CodeGenStage::Launcher)
      return std::move(Out);
    if (llvm::Error E = buildObject(Jobs, Table))
      return std::move(E);
    return std::move(Out);
  }

private:
  /// The parse checked the names it saw (findGlobalDeclaration); the
  /// runtime's headers bring in more of the C library's: a host compile
  /// that failed on the generated namespace says so.
  llvm::Error explainHostFailure(llvm::Error E) {
    if (!C.isLibraryName(Opts.Namespace))
      return E;
    llvm::consumeError(std::move(E));
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        formatMessage(
            getFormat(DiagID::err_namespace_is_library_name),
            {llvm::sys::path::filename(Opts.InputPath).str(), Opts.Namespace}));
  }

  /// Each compile the object would need, as -fsyntax-only: a device
  /// source per target (once per PTX target, as buildImages), and the
  /// launcher, beside them on its own thread as in buildObject.
  llvm::Error checkSources() {
    std::string Launcher =
        generateLauncherSource(M, Opts.Namespace, Opts.InputPath, {});
    std::unique_ptr<HostIR> Host;
    {
      std::optional<DeepStackThread> Worker;
      bool Early = handEarlyHost(Launcher, /*SyntaxOnly=*/true);
      if (!Early && hostBeside())
        Worker.emplace(
            [&] { Host = C.compileHostIR(Launcher, /*SyntaxOnly=*/true); });
      std::vector<OffloadTarget> Done;
      for (const OffloadTarget &Asked : Opts.Targets) {
        const DeviceHooks &T = getHooksForTarget(Asked);
        OffloadTarget Target = Asked.getPtxTarget();
        if (llvm::is_contained(Done, Target))
          continue;
        Done.push_back(Target);
        if (llvm::Error E = C.checkDeviceSource(deviceSource(T), T, Target))
          return E; // the worker is joined; what it printed is dropped
      }
      if (Early)
        Host = takeEarlyHost();
    }
    if (!Host)
      Host = C.compileHostIR(Launcher, /*SyntaxOnly=*/true);
    if (llvm::Error E = C.finishHostCompile(*Host))
      return explainHostFailure(std::move(E));
    return llvm::Error::success();
  }

  bool hostBeside() const { return isHostBeside(Opts, Tools); }

  /// Hands Launcher to the host compile begun before the module existed,
  /// if there is one for this stage (SyntaxOnly: the check's); false if
  /// not.
  bool handEarlyHost(const std::string &Launcher, bool SyntaxOnly) {
    if (!Opts.EarlyHost)
      return false;
    EarlyHostCompile::State &S = Opts.EarlyHost->getState();
    if (S.Handed || S.SyntaxOnly != SyntaxOnly)
      return false;
    S.Handed = true;
    S.Late.supply(Launcher);
    return true;
  }
  /// Waits for the early host compile: null where the launcher did not fit
  /// its buffer (compileHostIR compiles it then).
  std::unique_ptr<HostIR> takeEarlyHost() {
    EarlyHostCompile::State &S = Opts.EarlyHost->getState();
    S.Worker.reset();
    return std::move(S.Host);
  }

  /// The device source for T, generated once.
  const std::string &deviceSource(const TargetHooks &T) {
    std::string &Source = Sources[&T];
    if (Source.empty())
      Source = generateDeviceSource(M, T, Opts.InputPath);
    return Source;
  }

  llvm::Error buildDeviceIR() {
    for (const OffloadTarget &Target : Opts.Targets) {
      const DeviceHooks &T = getHooksForTarget(Target);
      OffloadTarget Through = Target.getPtxTarget();
      llvm::Expected<std::string> IR = C.compileDevice(
          deviceSource(T), T, Through, Compiler::DeviceOutput::LLVM, "ll",
          "the LLVM IR for " + Through.getName());
      if (!IR)
        return IR.takeError();
      Out.DeviceIR.emplace_back(Target.getName(), std::move(*IR));
    }
    return llvm::Error::success();
  }

  /// An image to build: compiled from the device source for Target, or,
  /// when From is not negative, native code assembled for Target from
  /// image From.
  struct ImageJob {
    DeviceImage Image; ///< its data filled by buildImages
    const DeviceHooks *Hooks;
    OffloadTarget Target;
    int From = -1;
  };

  /// An entry of the object's image table: the image of job Job, or a
  /// package of every image of Package's target (its data filled by
  /// buildObject).
  struct Embedded {
    DeviceImage Image;
    int Job = -1;
    const DeviceHooks *Package = nullptr;
  };

  /// The object's image table: each image as built, but where their
  /// target packs them (getPackageKind), one package of them all in place
  /// of the first, named by the targets in it ("sm_80,sm_90").
  std::vector<Embedded> planEmbedded(const std::vector<ImageJob> &Jobs) const {
    std::vector<Embedded> Table;
    for (size_t I = 0; I < Jobs.size(); ++I) {
      const DeviceHooks *T = Jobs[I].Hooks;
      ImageKind Kind = T->getPackageKind(Tools);
      if (Kind == ImageKind::None) {
        Table.push_back({Jobs[I].Image, static_cast<int>(I)});
        continue;
      }
      auto Package = llvm::find_if(
          Table, [&](const Embedded &E) { return E.Package == T; });
      if (Package == Table.end()) {
        Table.push_back({{Kind, "", 0, {}, {}, {}}, -1, T});
        Package = std::prev(Table.end());
      }
      std::string &Archs = Package->Image.Arch;
      llvm::SmallVector<llvm::StringRef, 4> Have;
      llvm::StringRef(Archs).split(Have, ',', -1, /*KeepEmpty=*/false);
      if (!llvm::is_contained(Have, Jobs[I].Image.Arch))
        Archs += (Archs.empty() ? "" : ",") + Jobs[I].Image.Arch;
    }
    return Table;
  }

  /// Fills Table's packages from the images built (Out.Images, in the
  /// order of Jobs) and adds each to Out.Images; the images the object
  /// embeds, in Table's order.
  llvm::Expected<std::vector<const DeviceImage *>>
  packageImages(const std::vector<ImageJob> &Jobs,
                std::vector<Embedded> &Table) {
    for (Embedded &E : Table) {
      if (!E.Package)
        continue;
      std::vector<const DeviceImage *> Parts;
      for (size_t I = 0; I < Jobs.size(); ++I)
        if (Jobs[I].Hooks == E.Package)
          Parts.push_back(&Out.Images[I]);
      auto Cut = Cuts.find(E.Package);
      if (llvm::Error Err = E.Package->packageImages(
              C, Parts,
              Cut != Cuts.end() && Cut->second ? &*Cut->second : nullptr,
              E.Image))
        return Err;
    }
    std::vector<const DeviceImage *> Images;
    for (Embedded &E : Table)
      if (E.Package)
        Out.Images.push_back(std::move(E.Image));
    size_t Next = Jobs.size();
    for (const Embedded &E : Table)
      Images.push_back(E.Package ? &Out.Images[Next++] : &Out.Images[E.Job]);
    return Images;
  }

  /// The images, in the order the runtime tries them: an image per target
  /// by kind (PTX, then HSACO), each kind in --offload-arch order; targets
  /// newer than LLVM's share their PTX (getPtxTarget), built once. Native
  /// code follows the images it is made from, before the next kind, where
  /// their target makes it (SASS beside PTX when ptxas is found): for the
  /// image's own target when it was asked for, and for each newer target
  /// asked for whose image it is. No JIT at load time on exactly that GPU;
  /// the portable image still serves newer ones.
  std::vector<ImageJob> planImages() const {
    std::vector<ImageJob> Jobs;
    std::map<std::string, std::vector<OffloadTarget>> Newer;
    for (const OffloadTarget &Asked : Opts.Targets) {
      const DeviceHooks &T = getHooksForTarget(Asked);
      OffloadTarget Target = Asked.getPtxTarget();
      if (Target != Asked)
        Newer[Target.getName()].push_back(Asked);
      if (llvm::any_of(Jobs, [&](const ImageJob &J) {
            return J.Image.Arch == Target.getName();
          }))
        continue;
      Jobs.push_back({{Target.getImageKind(),
                       Target.getName(),
                       Target.getArchNumber(),
                       {},
                       {},
                       {}},
                      &T,
                      Target});
    }
    llvm::stable_sort(Jobs, [](const ImageJob &A, const ImageJob &B) {
      return A.Image.Kind < B.Image.Kind;
    });
    std::vector<ImageJob> Native;
    size_t End = 0;
    for (size_t I = 0; I < Jobs.size(); ++I) {
      const DeviceHooks &T = *Jobs[I].Hooks;
      if (!T.hasNativeImages(Tools))
        continue;
      End = I + 1;
      std::vector<OffloadTarget> For;
      if (llvm::is_contained(Opts.Targets, Jobs[I].Target))
        For.push_back(Jobs[I].Target);
      for (const OffloadTarget &N : Newer[Jobs[I].Target.getName()])
        For.push_back(N);
      for (const OffloadTarget &F : For)
        Native.push_back({{T.getNativeImageKind(),
                           F.getName(),
                           F.getArchNumber(),
                           {},
                           {},
                           {}},
                          &T,
                          F,
                          static_cast<int>(I)});
    }
    Jobs.insert(Jobs.begin() + End, std::make_move_iterator(Native.begin()),
                std::make_move_iterator(Native.end()));
    return Jobs;
  }

  /// The cut of T's module into parts (DeviceHooks::planCut), planned
  /// once, from the images of T's jobs compiled before its first native
  /// one; none when T's images are not packaged.
  const ModuleCut *planCut(const std::vector<ImageJob> &Jobs,
                           const DeviceHooks &T) {
    auto [Found, New] = Cuts.try_emplace(&T);
    if (New && Opts.Stage == CodeGenStage::Object &&
        T.getPackageKind(Tools) != ImageKind::None) {
      std::vector<llvm::StringRef> Sources;
      for (const ImageJob &J : Jobs)
        if (J.Hooks == &T && J.From < 0)
          Sources.push_back(J.Image.Data);
      Found->second = T.planCut(C, Sources, getCutRules());
    }
    return Found->second ? &*Found->second : nullptr;
  }

  /// With --assert-record-per-part, the assert record in every part, each
  /// part's own, which the runtime reads in each; but where a kernel runs
  /// device-side loops, whose driver reads one record, the record (with its
  /// users) stays one. By default it is one: a synchronization reads each
  /// record (one copy each: 13.6 us for one, 290-332 us for 40, H200).
  CutRules getCutRules() const {
    CutRules Rules;
    if (Tools.getOptions().AssertRecordPerPart && M.UsesAsserts &&
        llvm::none_of(M.Kernels,
                      [](const kir::Kernel &K) { return !K.Loops.empty(); }))
      Rules.EachPart.push_back(names::AssertRecord.str());
    return Rules;
  }

  /// Builds Jobs in order into Out.Images.
  llvm::Error buildImages(std::vector<ImageJob> &Jobs) {
    bool AnyNative = false;
    for (ImageJob &J : Jobs) {
      if (J.From < 0) {
        llvm::Expected<std::string> Data =
            J.Hooks->compileImage(C, deviceSource(*J.Hooks), J.Target);
        if (!Data)
          return Data.takeError();
        J.Image.Data = std::move(*Data);
        continue;
      }
      if (llvm::Error E =
              J.Hooks->assembleImage(C, Jobs[J.From].Image.Data, J.Target,
                                     planCut(Jobs, *J.Hooks), J.Image))
        return locateAssemblerError(std::move(E), J.Target);
      AnyNative = true;
      reportResources(J.Target, C.takeToolLog());
    }
    for (ImageJob &J : Jobs)
      Out.Images.push_back(std::move(J.Image));
    if (Tools.getOptions().ResourceUsage && !AnyNative &&
        Opts.Stage != CodeGenStage::Images)
      llvm::errs() << "qdc: warning: --resource-usage reports what ptxas "
                      "finds for NVIDIA architectures; "
                   << (llvm::any_of(Out.Images,
                                    [](const DeviceImage &I) {
                                      return I.Kind == ImageKind::PTX;
                                    })
                           ? "ptxas (the CUDA toolkit) was not found"
                           : "none is compiled for")
                   << "\n";
    return llvm::Error::success();
  }

  /// The images and the host object. The host code does not depend on the
  /// images (the launcher declares their table; emitHostObject defines
  /// it), so with more than one thread it compiles on its own thread while
  /// the images are built; what it prints is printed after theirs, as
  /// when one thread does both.
  llvm::Error buildObject(std::vector<ImageJob> &Jobs,
                          std::vector<Embedded> &Table) {
    std::string Prefix = names::getMangledPrefix(Opts.Namespace);
    std::unique_ptr<HostIR> Host;
    std::vector<const DeviceImage *> Images;
    {
      std::optional<DeepStackThread> Worker;
      bool Early = handEarlyHost(Out.LauncherSource, /*SyntaxOnly=*/false);
      if (!Early && hostBeside())
        Worker.emplace([&] { Host = C.compileHostIR(Out.LauncherSource); });
      // On an error the worker is joined; what it printed is dropped.
      if (llvm::Error E = buildImages(Jobs))
        return E;
      llvm::Expected<std::vector<const DeviceImage *>> Packaged =
          packageImages(Jobs, Table);
      if (!Packaged)
        return Packaged.takeError();
      Images = std::move(*Packaged);
      if (Early)
        Host = takeEarlyHost();
    }
    if (!Host)
      Host = C.compileHostIR(Out.LauncherSource);
    llvm::Expected<std::string> Object =
        C.emitHostObject(*Host, Images, Prefix);
    if (!Object)
      return explainHostFailure(Object.takeError());
    Out.Object = std::move(*Object);
    return llvm::Error::success();
  }

  /// What the native assembler said of F's code: with --resource-usage,
  /// each task's registers, spills, stack and shared memory as a remark at
  /// its .qd line; with -Xptxas -v, its own lines.
  void reportResources(const OffloadTarget &F, llvm::StringRef Log) const {
    const ToolchainOptions &TO = Tools.getOptions();
    if (llvm::any_of(TO.PtxasArgs, [](const std::string &A) {
          return A == "-v" || A == "--verbose";
        }))
      llvm::errs() << Log << (Log.ends_with("\n") ? "" : "\n");
    if (!TO.ResourceUsage)
      return;
    llvm::Regex Entry("Compiling entry function '([^']+)'");
    llvm::Regex Frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill "
                      "stores, ([0-9]+) bytes spill loads");
    llvm::Regex Used("Used ([0-9]+) registers");
    llvm::Regex Shared("([0-9]+) bytes smem");
    std::string Task, Stack = "0", Stores = "0", Loads = "0";
    llvm::SmallVector<llvm::StringRef, 8> Got;
    llvm::SmallVector<llvm::StringRef, 0> Lines;
    Log.split(Lines, '\n');
    for (llvm::StringRef Line : Lines) {
      if (Entry.match(Line, &Got)) {
        Task = Got[1].str();
        Stack = Stores = Loads = "0";
      } else if (Frame.match(Line, &Got)) {
        Stack = Got[1].str(), Stores = Got[2].str(), Loads = Got[3].str();
      } else if (!Task.empty() && Used.match(Line, &Got)) {
        std::string Registers = Got[1].str();
        std::string Smem = Shared.match(Line, &Got) ? Got[1].str() : "0";
        SourceLoc Loc = findTask(Task);
        llvm::errs() << (Loc.isValid() ? Loc.File : Opts.InputPath) << ':'
                     << Loc.Line << ':' << Loc.Column << ": remark: task '"
                     << Task << "' for " << F.getName() << ": " << Registers
                     << " registers, " << Stack << " bytes stack, " << Stores
                     << " bytes spill stores, " << Loads
                     << " bytes spill loads, " << Smem
                     << " bytes shared memory\n";
        Task.clear();
      }
    }
  }
  /// A native assembler's error about an entry function (ptxas: "Entry
  /// function 'k_t0' uses too much parameter space (...)") is printed as an
  /// error at the task's .qd line, naming the task and the target; the
  /// error returned says only that the assembler failed.
  llvm::Error locateAssemblerError(llvm::Error E, const OffloadTarget &F) {
    std::string Text = llvm::toString(std::move(E));
    llvm::Regex Entry("Entry function '([^']+)' ([^\n]*)");
    llvm::SmallVector<llvm::StringRef, 3> Got;
    SourceLoc Loc;
    if (Entry.match(Text, &Got))
      Loc = findTask(Got[1]);
    if (!Loc.isValid())
      return llvm::createStringError(llvm::inconvertibleErrorCode(), Text);
    llvm::errs() << Loc.File << ':' << Loc.Line << ':' << Loc.Column
                 << ": error: task '" << Got[1] << "' for " << F.getName()
                 << ": " << Got[2].rtrim().rtrim('.') << " (ptxas)\n";
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "ptxas could not assemble the code for " +
                                       F.getName());
  }

  /// Where task Name (an entry function) comes from in the .qd.
  SourceLoc findTask(llvm::StringRef Name) const {
    for (const kir::Kernel &K : M.Kernels)
      for (const kir::Task &Tk : K.Tasks)
        if (Tk.Name == Name)
          return Tk.Loc;
    return {};
  }

  const kir::Module &M;
  const CodeGenOptions &Opts;
  const Toolchain &Tools;
  Compiler C;
  Artifacts Out;
  std::map<const TargetHooks *, std::string> Sources;
  /// Each target's cut, once planned (planCut).
  std::map<const DeviceHooks *, std::optional<ModuleCut>> Cuts;
};

} // namespace

llvm::Expected<Artifacts> qdc::emit(const kir::Module &M,
                                    const CodeGenOptions &Opts,
                                    const Toolchain &Tools) {
  return ArtifactBuilder(M, Opts, Tools).run();
}
