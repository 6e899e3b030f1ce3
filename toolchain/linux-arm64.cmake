# linux-arm64: Debian's aarch64 cross compiler (crossbuild-essential-arm64, g++ 12) with its own
# glibc (2.36, Debian 12's), against Debian 12's arm64 packages of LLVM 14, zlib, OpenSSL 3 and
# ncurses' terminfo unpacked by toolchain/debs.sh into WEFT_SYSROOT (./dev build --target
# linux-arm64 passes it). The C++ runtime is linked in statically, so the executables need only
# glibc.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
if(NOT WEFT_SYSROOT)
  set(WEFT_SYSROOT "$ENV{WEFT_SYSROOT}")
endif()
if(NOT WEFT_SYSROOT)
  message(FATAL_ERROR "linux-arm64.cmake: set WEFT_SYSROOT to the Debian 12 arm64 packages' folder")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WEFT_SYSROOT)
set(multiarch aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${multiarch}-gcc)
set(CMAKE_CXX_COMPILER ${multiarch}-g++)
# The cross compiler finds its C library and C++ headers itself (/usr/${multiarch}); the
# packages' folder holds the other libraries. Their multiarch headers (opensslconf.h) are in a
# folder the compiler does not know.
set(CMAKE_C_FLAGS_INIT "-isystem ${WEFT_SYSROOT}/usr/include/${multiarch}")
set(CMAKE_CXX_FLAGS_INIT "-isystem ${WEFT_SYSROOT}/usr/include/${multiarch}")
set(link_flags "-static-libstdc++ -static-libgcc")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${link_flags}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${link_flags}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${link_flags}")
set(CMAKE_FIND_ROOT_PATH "${WEFT_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# How the arm64 executables run on this machine (CMake's own tests, try_run).
find_program(WEFT_QEMU_AARCH64 qemu-aarch64)
if(WEFT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${WEFT_QEMU_AARCH64} -L /usr/${multiarch})
endif()
