# cmake -DINPUT=file -DOUTPUT=file.inc -P EmbedBytes.cmake: writes INPUT's bytes as a
# comma-separated list of C++ integer literals, to be included in an array initializer.
file(READ "${INPUT}" Hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," Bytes "${Hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" Bytes "${Bytes}")
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT}; do not edit.\n${Bytes}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
