# linux-x64 for every glibc Linux .NET runs on: the host's g++ 12 compiling against glibc 2.31
# (a sysroot toolchain/debs.sh makes from Debian 11's packages), with libstdc++ 12 linked in
# statically and Debian 11's libgcc 10 (gcc 12's unwinder calls _dl_find_object, glibc 2.35).
# WEFT_SYSROOT names the sysroot (./dev build --target linux-x64 passes it).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
if(NOT WEFT_SYSROOT)
  set(WEFT_SYSROOT "$ENV{WEFT_SYSROOT}")
endif()
if(NOT WEFT_SYSROOT)
  message(FATAL_ERROR "linux-x64.cmake: set WEFT_SYSROOT to the Debian 11 sysroot")
endif()
# Try-compiles see the same sysroot.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WEFT_SYSROOT)
set(CMAKE_SYSROOT "${WEFT_SYSROOT}")
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(multiarch x86_64-linux-gnu)
execute_process(COMMAND g++ -dumpversion OUTPUT_VARIABLE gcc_major OUTPUT_STRIP_TRAILING_WHITESPACE)
# The host's C++ headers (libstdc++ 12), which the sysroot has not.
set(CMAKE_CXX_FLAGS_INIT
    "-isystem /usr/include/c++/${gcc_major} -isystem /usr/include/${multiarch}/c++/${gcc_major}")
set(CMAKE_C_FLAGS_INIT "")
set(link_flags
    "-B${WEFT_SYSROOT}/usr/lib/${multiarch} -L${WEFT_SYSROOT}/usr/lib/gcc/${multiarch}/10"
    "-L${WEFT_SYSROOT}/usr/lib/${multiarch} -L${WEFT_SYSROOT}/lib/${multiarch}"
    "-L/usr/lib/gcc/${multiarch}/${gcc_major} -static-libstdc++ -static-libgcc")
string(JOIN " " link_flags ${link_flags})
set(CMAKE_EXE_LINKER_FLAGS_INIT "${link_flags}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${link_flags}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${link_flags}")
set(CMAKE_FIND_ROOT_PATH "${WEFT_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
