//===- coverage/MapReader.cpp - Reading coverage maps ---------------------===//
//
// readMap reads a coverage map in one pass over its text, straight into the Map, with no JSON
// tree between: a tree of a large map takes far more memory than the map, and building one (each
// array's values copied as it grows) was most of a report's time. The reader takes any JSON
// layout of the map, checks each value's kind and range where it reads it, skips members it does
// not know (nested at most MaxDepth deep), and names what is wrong by its path in the map and its
// byte offset.
//
//===----------------------------------------------------------------------===//
#include "coverage/Report.h"
#include "support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ConvertUTF.h"

using namespace llvm;

namespace weft::coverage {

namespace {

constexpr unsigned MaxDepth = 64;

/// A position in the map's text and the path to it ("methods[3].blocks[0].il"), for errors.
class Cursor {
public:
  explicit Cursor(StringRef Text) : Text(Text) {}

  /// An error at the current path and offset.
  Error error(const Twine &What) const {
    std::string Where = path();
    return plainError("coverage map: " + (Where.empty() ? std::string("top level") : Where) + ": " +
                      What + " (offset " + Twine(Pos) + ")");
  }

  /// Calls \p Member(Key) for each member of an object, the cursor on its value.
  template <typename F> Error object(F Member) {
    if (Error E = open('{', "expected an object"))
      return E;
    if (take('}'))
      return Error::success();
    do {
      space();
      if (!at('"'))
        return error("expected a member's name in quotes");
      std::string Escaped;
      Expected<StringRef> Key = key(Escaped);
      if (!Key)
        return Key.takeError();
      space();
      if (!take(':'))
        return error("expected ':' after \"" + *Key + "\"");
      Path.push_back({*Key, 0, false});
      Error E = Member(*Key);
      Path.pop_back();
      if (E)
        return E;
      space();
    } while (take(','));
    return close('}');
  }

  /// Calls \p Element(Index) for each element of an array, the cursor on it.
  template <typename F> Error array(F Element) {
    if (Error E = open('[', "expected an array"))
      return E;
    if (take(']'))
      return Error::success();
    size_t I = 0;
    do {
      Path.push_back({{}, I, true});
      Error E = Element(I++);
      Path.pop_back();
      if (E)
        return E;
      space();
    } while (take(','));
    return close(']');
  }

  Expected<std::string> string() {
    space();
    if (!take('"'))
      return error("expected a string");
    std::string S;
    while (Pos < Text.size()) {
      size_t Plain = Pos;
      while (Plain < Text.size() && Text[Plain] != '"' && Text[Plain] != '\\' &&
             uint8_t(Text[Plain]) >= 0x20)
        ++Plain;
      S.append(Text.data() + Pos, Plain - Pos);
      Pos = Plain;
      if (Pos == Text.size())
        break;
      char C = Text[Pos++];
      if (C == '"')
        return S;
      if (uint8_t(C) < 0x20)
        return error("a control character in a string");
      if (Pos >= Text.size())
        break;
      switch (char X = Text[Pos++]) {
      case '"':
      case '\\':
      case '/': S += X; break;
      case 'b': S += '\b'; break;
      case 'f': S += '\f'; break;
      case 'n': S += '\n'; break;
      case 'r': S += '\r'; break;
      case 't': S += '\t'; break;
      case 'u':
        if (Error E = unicodeEscape(S))
          return std::move(E);
        break;
      default: return error("an unknown escape '\\" + Twine(X) + "' in a string");
      }
    }
    return error("a string without its closing quote");
  }

  /// A JSON integer (no fraction or exponent) from \p Min to \p Max.
  Expected<int64_t> integer(int64_t Min, int64_t Max, const Twine &Expected) {
    space();
    size_t Start = Pos;
    bool Negative = take('-');
    // Magnitudes up to 2^63 (INT64_MIN's), digit by digit; one more digit would overflow.
    uint64_t Magnitude = 0, Limit = uint64_t(INT64_MAX) + Negative;
    bool Fits = true;
    size_t Digits = Pos;
    for (; Pos < Text.size() && isDigit(Text[Pos]); ++Pos) {
      unsigned D = unsigned(Text[Pos] - '0');
      Fits = Fits && Magnitude <= (Limit - D) / 10;
      Magnitude = Magnitude * 10 + D;
    }
    bool Fraction = at('.') || at('e') || at('E');
    int64_t V = Negative ? int64_t(0 - Magnitude) : int64_t(Magnitude);
    if (Pos == Digits || !Fits || Fraction || V < Min || V > Max) {
      Pos = Start;
      return error("expected " + Expected);
    }
    return V;
  }
  /// A member's name: the text itself when it has no escapes, else \p Escaped made from it.
  Expected<StringRef> key(std::string &Escaped) {
    size_t Start = Pos + 1, End = Start;
    while (End < Text.size() && Text[End] != '"' && Text[End] != '\\' && uint8_t(Text[End]) >= 0x20)
      ++End;
    if (End < Text.size() && Text[End] == '"') {
      Pos = End + 1;
      return Text.slice(Start, End);
    }
    Expected<std::string> S = string();
    if (!S)
      return S.takeError();
    Escaped = std::move(*S);
    return StringRef(Escaped);
  }
  Expected<uint32_t> u32() {
    Expected<int64_t> V = integer(0, 0xFFFFFFFFll, "an integer from 0 to 2^32-1");
    if (!V)
      return V.takeError();
    return uint32_t(*V);
  }

  Expected<bool> boolean() {
    space();
    if (word("true"))
      return true;
    if (word("false"))
      return false;
    return error("expected true or false");
  }

  /// Skips a value of any kind (a member the reader does not know).
  Error skip(unsigned Depth = 0) {
    space();
    if (Depth > MaxDepth)
      return error("values nested more than " + Twine(MaxDepth) + " deep");
    if (at('{'))
      return object([&](StringRef) { return skip(Depth + 1); });
    if (at('['))
      return array([&](size_t) { return skip(Depth + 1); });
    if (at('"'))
      return string().takeError();
    if (word("true") || word("false") || word("null"))
      return Error::success();
    size_t Start = Pos;
    if (at('-'))
      ++Pos;
    while (Pos < Text.size() && (isDigit(Text[Pos]) || StringRef(".eE+-").contains(Text[Pos])))
      ++Pos;
    if (Pos == Start || !isDigit(Text[Pos - 1]))
      return Pos = Start, error("expected a JSON value");
    return Error::success();
  }

  /// Whether the next value starts with \p C.
  bool next(char C) {
    space();
    return at(C);
  }

  /// Fails unless only white space is left.
  Error end() {
    space();
    return Pos == Text.size() ? Error::success() : error("text after the map's object");
  }

private:
  struct Step {
    StringRef Key; // in the text, or in object()'s Escaped while the member is read
    size_t Index;
    bool IsIndex;
  };

  std::string path() const {
    std::string S;
    for (const Step &P : Path)
      S += P.IsIndex ? "[" + std::to_string(P.Index) + "]" : (S.empty() ? "" : ".") + P.Key.str();
    return S;
  }
  void space() {
    while (Pos < Text.size() &&
           (Text[Pos] == ' ' || Text[Pos] == '\n' || Text[Pos] == '\t' || Text[Pos] == '\r'))
      ++Pos;
  }
  bool at(char C) const { return Pos < Text.size() && Text[Pos] == C; }
  bool take(char C) {
    space();
    return at(C) ? (++Pos, true) : false;
  }
  bool word(StringRef W) {
    if (!Text.substr(Pos).startswith(W))
      return false;
    Pos += W.size();
    return true;
  }
  Error open(char C, const Twine &What) {
    space();
    return take(C) ? Error::success() : error(What);
  }
  Error close(char C) {
    return take(C) ? Error::success() : error("expected ',' or '" + Twine(C) + "'");
  }
  Expected<unsigned> hex4() {
    unsigned V = 0;
    for (int I = 0; I < 4; ++I, ++Pos) {
      unsigned D = Pos < Text.size() ? hexDigitValue(Text[Pos]) : ~0u;
      if (D == ~0u)
        return error("expected four hex digits after \\u");
      V = V * 16 + D;
    }
    return V;
  }
  /// \uXXXX (and its pair, for a character beyond the BMP) as UTF-8; a lone surrogate as U+FFFD.
  Error unicodeEscape(std::string &S) {
    Expected<unsigned> U = hex4();
    if (!U)
      return U.takeError();
    unsigned C = *U;
    if (C >= 0xD800 && C < 0xDC00 && Text.substr(Pos).startswith("\\u")) {
      size_t Back = Pos;
      Pos += 2;
      Expected<unsigned> Low = hex4();
      if (!Low)
        return Low.takeError();
      if (*Low >= 0xDC00 && *Low < 0xE000)
        C = 0x10000 + ((C - 0xD800) << 10) + (*Low - 0xDC00);
      else
        Pos = Back;
    }
    if (C >= 0xD800 && C < 0xE000)
      C = 0xFFFD;
    char Buf[UNI_MAX_UTF8_BYTES_PER_CODE_POINT];
    char *Out = Buf;
    ConvertCodePointToUTF8(C, Out);
    S.append(Buf, Out);
    return Error::success();
  }

  StringRef Text;
  size_t Pos = 0;
  SmallVector<Step, 8> Path;
};

/// [start, end] or [].
Error readIL(Cursor &C, Block &B) {
  uint32_t F[2];
  size_t N = 0;
  if (Error E = C.array([&](size_t I) -> Error {
        if (I >= 2)
          return C.error("expected [start, end] or []");
        Expected<uint32_t> X = C.u32();
        if (!X)
          return X.takeError();
        F[N++] = *X;
        return Error::success();
      }))
    return E;
  if (N == 1)
    return C.error("expected [start, end] or []");
  if (N == 2)
    B.IL = {F[0], F[1]};
  return Error::success();
}

/// [document, line, column, end line, end column].
Error readSpan(Cursor &C, SourceSpan &S) {
  uint32_t *F[] = {&S.Document, &S.StartLine, &S.StartColumn, &S.EndLine, &S.EndColumn};
  size_t N = 0;
  if (Error E = C.array([&](size_t I) -> Error {
        if (I >= 5)
          return C.error("expected [document, line, column, end line, end column]");
        Expected<uint32_t> X = C.u32();
        if (!X)
          return X.takeError();
        *F[N++] = *X;
        return Error::success();
      }))
    return E;
  return N == 5 ? Error::success()
                : C.error("expected [document, line, column, end line, end column]");
}

Error readBlock(Cursor &C, Block &B) {
  bool HaveIL = false;
  if (Error E = C.object([&](StringRef Key) -> Error {
        if (Key == "il")
          return HaveIL = true, readIL(C, B);
        if (Key == "continues") {
          Expected<bool> V = C.boolean();
          if (!V)
            return V.takeError();
          B.Continues = *V;
          return Error::success();
        }
        if (Key == "lines")
          return C.array([&](size_t) {
            B.Lines.emplace_back();
            return readSpan(C, B.Lines.back());
          });
        return C.skip();
      }))
    return E;
  return HaveIL ? Error::success() : C.error("no \"il\": expected [start, end] or []");
}

/// An array of offsets, at least one.
Error readOffsets(Cursor &C, std::vector<uint32_t> &Out, StringRef What) {
  if (Error E = C.array([&](size_t) -> Error {
        Expected<uint32_t> X = C.u32();
        if (!X)
          return X.takeError();
        Out.push_back(*X);
        return Error::success();
      }))
    return E;
  return Out.empty() ? C.error("expected " + What) : Error::success();
}

/// {"counter": K}: a jump counted by a counter of its own, the method's K-th.
Error readOwnCounter(Cursor &C, BranchPoint &BP) {
  bool Have = false;
  if (Error E = C.object([&](StringRef Key) -> Error {
        if (Key != "counter")
          return C.skip();
        Expected<uint32_t> X = C.u32();
        if (!X)
          return X.takeError();
        BP.OwnCounter = *X;
        Have = true;
        return Error::success();
      }))
    return E;
  return Have ? Error::success() : C.error("no \"counter\"");
}

/// {"past": [offsets]}: the statements a jump counted when taken goes past.
Error readPast(Cursor &C, BranchPoint &BP) {
  return C.object([&](StringRef Key) -> Error {
    if (Key != "past")
      return C.skip();
    return readOffsets(C, BP.Past, "the statements it goes past");
  });
}

/// [offset, end offset, path, ordinal, document, line(, counted when taken)]: counted when taken
/// is the arrivals left out (an offset, or [offset, more...]), then optionally 1 if it bypasses
/// (or 0), then optionally [offsets...] whose blocks' runs are added; or {"counter": K}, then
/// optionally 1 if it bypasses; last, optionally {"past": [offsets]}.
Error readBranch(Cursor &C, BranchPoint &BP) {
  uint32_t F[8] = {};
  size_t N = 0;
  bool HavePast = false;
  auto Shape = "expected [offset, end offset, path, ordinal, document, line] and optionally the "
               "arrivals left out, 1 if it bypasses, the runs added and the statements passed";
  if (Error E = C.array([&](size_t I) -> Error {
        if (I >= 10 || HavePast)
          return C.error(Shape);
        if (I >= 7 && C.next('{'))
          return HavePast = true, readPast(C, BP);
        ++N;
        if (I == 6 && C.next('['))
          return readOffsets(C, BP.LessArrivals, "the arrivals left out");
        if (I == 6 && C.next('{'))
          return readOwnCounter(C, BP);
        if (I == 8)
          return readOffsets(C, BP.MoreRuns, "the runs added");
        Expected<uint32_t> X = C.u32();
        if (!X)
          return X.takeError();
        F[I] = *X;
        if (I == 6)
          BP.LessArrivals.push_back(*X);
        return Error::success();
      }))
    return E;
  if (N < 6)
    return C.error(Shape);
  BP.Offset = F[0];
  BP.EndOffset = F[1];
  BP.Path = F[2];
  BP.Ordinal = F[3];
  BP.Document = F[4];
  BP.Line = F[5];
  BP.Taken = N >= 7;
  BP.Bypasses = N >= 8 && F[7] == 1;
  if (BP.OwnCounter && N > 8)
    return C.error(Shape);
  return Error::success();
}

Error readMethod(Cursor &C, Method &Me) {
  bool HaveCounter = false, HaveBlocks = false;
  if (Error E = C.object([&](StringRef Key) -> Error {
        std::string *Text = StringSwitch<std::string *>(Key)
                                .Case("token", &Me.Token)
                                .Case("type", &Me.Type)
                                .Case("name", &Me.Name)
                                .Case("signature", &Me.Signature)
                                .Case("coverletName", &Me.CoverletName)
                                .Default(nullptr);
        if (Text) {
          Expected<std::string> S = C.string();
          if (!S)
            return S.takeError();
          *Text = std::move(*S);
          return Error::success();
        }
        if (Key == "order") {
          Expected<uint32_t> X = C.u32();
          if (!X)
            return X.takeError();
          Me.Order = *X;
          return Error::success();
        }
        if (Key == "counter" || Key == "complexity") {
          Expected<uint32_t> X = C.u32();
          if (!X)
            return X.takeError();
          (Key == "counter" ? Me.FirstCounter : Me.Complexity) = *X;
          HaveCounter |= Key == "counter";
          return Error::success();
        }
        if (Key == "blocks")
          return HaveBlocks = true, C.array([&](size_t K) -> Error {
            Me.Blocks.emplace_back();
            if (Error E = readBlock(C, Me.Blocks.back()))
              return E;
            if (K == 0 && Me.Blocks.back().Continues)
              return C.error("the first block continues nothing");
            return Error::success();
          });
        if (Key == "branches")
          return C.array([&](size_t) {
            Me.Branches.emplace_back();
            return readBranch(C, Me.Branches.back());
          });
        return C.skip();
      }))
    return E;
  if (!HaveCounter || !HaveBlocks)
    return C.error(!HaveCounter ? "no \"counter\"" : "no \"blocks\"");
  return Error::success();
}

Error mapError(const Twine &Where, const Twine &What) {
  return plainError("coverage map: " + Where + ": " + What);
}

/// What can be checked only once the whole map is read (weft writes the counter count and the
/// documents after the methods): the counters numbered method after method, block after block,
/// and every document index within the documents.
Error checkMethods(const Map &M) {
  uint64_t Next = 0;
  for (size_t I = 0; I < M.Methods.size(); ++I) {
    const Method &Me = M.Methods[I];
    std::string Where = ("methods[" + Twine(I) + "]").str();
    if (Me.FirstCounter != Next)
      return mapError(Where + ".counter", "counter " + Twine(Me.FirstCounter) + " where " +
                                              Twine(Next) + " was expected");
    for (size_t K = 0; K < Me.Blocks.size(); ++K)
      for (size_t L = 0; L < Me.Blocks[K].Lines.size(); ++L)
        if (uint32_t D = Me.Blocks[K].Lines[L].Document; D >= M.Documents.size())
          return mapError(Where + ".blocks[" + Twine(K) + "].lines[" + Twine(L) + "]",
                          "document " + Twine(D) + " of " + Twine(M.Documents.size()));
    for (size_t K = 0; K < Me.Branches.size(); ++K) {
      const BranchPoint &BP = Me.Branches[K];
      if (BP.Document >= M.Documents.size())
        return mapError(Where + ".branches[" + Twine(K) + "]",
                        "document " + Twine(BP.Document) + " of " + Twine(M.Documents.size()));
      if (BP.OwnCounter && *BP.OwnCounter >= Me.Blocks.size())
        return mapError(Where + ".branches[" + Twine(K) + "]", "counter " + Twine(*BP.OwnCounter) +
                                                                   " of the method's " +
                                                                   Twine(Me.Blocks.size()));
    }
    Next += Me.Blocks.size();
    if (Next > M.Counters)
      return mapError(Where, "more blocks than the " + Twine(M.Counters) + " counters");
  }
  if (Next != M.Counters)
    return mapError("counters",
                    "the methods have " + Twine(Next) + " blocks, not " + Twine(M.Counters));
  return Error::success();
}

} // namespace

Expected<Map> readMap(StringRef Json) {
  Cursor C(Json);
  Map M;
  std::optional<std::string> Format;
  std::optional<int64_t> Version;
  bool HaveAssembly = false, HaveMvid = false, HaveCounters = false, HaveDocuments = false,
       HaveMethods = false;
  Error E = C.object([&](StringRef Key) -> Error {
    if (Key == "format" || Key == "assembly" || Key == "mvid") {
      Expected<std::string> S = C.string();
      if (!S)
        return S.takeError();
      if (Key == "format")
        Format = std::move(*S);
      else
        (Key == "assembly" ? M.Assembly : M.Mvid) = std::move(*S);
      (Key == "assembly" ? HaveAssembly : HaveMvid) |= Key != "format";
      return Error::success();
    }
    if (Key == "version") {
      Expected<int64_t> V = C.integer(INT64_MIN, INT64_MAX, "an integer");
      if (!V)
        return V.takeError();
      Version = *V;
      return Error::success();
    }
    if (Key == "counters") {
      Expected<uint32_t> N = C.u32();
      if (!N)
        return N.takeError();
      M.Counters = *N;
      HaveCounters = true;
      return Error::success();
    }
    if (Key == "documents")
      return HaveDocuments = true, C.array([&](size_t) -> Error {
        Expected<std::string> S = C.string();
        if (!S)
          return S.takeError();
        M.Documents.push_back(std::move(*S));
        return Error::success();
      });
    if (Key == "methods")
      return HaveMethods = true, C.array([&](size_t) {
        M.Methods.emplace_back();
        return readMethod(C, M.Methods.back());
      });
    return C.skip();
  });
  if (!E)
    E = C.end();
  if (E) {
    if (Format != "weft-coverage-map")
      return joinErrors(
          mapError("top level", "not a weft coverage map (no \"format\": \"weft-coverage-map\")"),
          std::move(E));
    return std::move(E);
  }
  if (Format != "weft-coverage-map")
    return mapError("top level", "not a weft coverage map (no \"format\": \"weft-coverage-map\")");
  if (Version != 1)
    return mapError("version", "only version 1 is known");
  if (!HaveAssembly || !HaveMvid)
    return mapError("top level", Twine("no \"") + (HaveAssembly ? "mvid" : "assembly") + "\"");
  if (!HaveCounters)
    return mapError("counters", "expected an integer from 0 to 2^32-1");
  if (!HaveDocuments || !HaveMethods)
    return mapError(HaveDocuments ? "methods" : "documents", "expected an array");
  if (Error E = checkMethods(M))
    return std::move(E);
  return std::move(M);
}

} // namespace weft::coverage
