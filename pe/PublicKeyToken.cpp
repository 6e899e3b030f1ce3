//===- pe/PublicKeyToken.cpp - The token of a public key ------------------===//
//
// Apart from the rest of StrongName.cpp, which signs and verifies with libcrypto: what needs only
// the token (references to probe and replacement assemblies) then links no RSA code, and the
// runtime profiler does not load libcrypto.
//
//===----------------------------------------------------------------------===//
#include "pe/StrongName.h"
#include "support/Format.h"

using namespace llvm;

namespace weft::pe {

std::string publicKeyToken(ArrayRef<uint8_t> Blob) {
  std::vector<uint8_t> Hash = digest(DigestKind::SHA1, {Blob});
  std::string Token;
  for (size_t I = 0; I < 8; ++I)
    Token += hexstr(Hash[Hash.size() - 1 - I], true, 2);
  return Token;
}

} // namespace weft::pe
