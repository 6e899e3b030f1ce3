//===- tests/fuzz/Host.h - The assembly the fuzz targets work on -*- C++ -*-===//
//
// tests/data/fuzz-weave/FuzzHost.dll, read once: FuzzSpec selects its methods, FuzzWeave replaces
// one of their bodies.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_FUZZ_HOST_H
#define WEFT_TESTS_FUZZ_HOST_H

#include "metadata/Module.h"
#include "pe/Image.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace weft::fuzz {

struct Host {
  std::unique_ptr<pe::Image> Img;
  std::unique_ptr<metadata::Module> M;
  std::vector<uint32_t> Methods; // the MethodDef rows with a body
};

/// The host assembly; a host that does not read is a bug().
const Host &host();

} // namespace weft::fuzz

#endif
