//===- tests/fuzz/Host.cpp - The assembly the fuzz targets work on -------===//
#include "tests/fuzz/Host.h"

#include "tests/fuzz/Targets.h"

using namespace llvm;

namespace weft::fuzz {

const Host &host() {
  static const Host H = [] {
    Host H;
    auto Img = pe::Image::open(WEFT_FUZZ_WEAVE_DIR "/FuzzHost.dll");
    if (!Img)
      bug("the host assembly does not open: " + toString(Img.takeError()));
    auto M = metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
    if (!M)
      bug("the host assembly does not read: " + toString(M.takeError()));
    for (uint32_t R = 1; R <= (*M)->rowCount(metadata::TableId::MethodDef); ++R)
      if ((*M)->get(metadata::TableId::MethodDef, R, metadata::MethodDefCol::RVA))
        H.Methods.push_back(R);
    H.Img = std::move(*Img);
    H.M = std::move(*M);
    return H;
  }();
  return H;
}

} // namespace weft::fuzz
