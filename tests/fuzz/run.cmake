# Builds the fuzz targets with clang and the sanitizers in their own build tree, then runs each for
# a bounded time, seeded from the corpus programs, their PDBs, the external corpus, the inputs of
# tests/data/fuzz-regressions and the seeds of tests/fuzz/seeds.
#   cmake -DSOURCE_DIR=<repo> -DBUILD_DIR=<dir> -DSEEDS=<dir;dir> -DSECONDS=<n>
#         [-DTARGETS=<FuzzX;FuzzY>] [-DQUICK=ON] -P run.cmake
# The corpus each target builds up stays in BUILD_DIR/corpus-<kind> for the next run.
find_program(CLANG NAMES clang-14 clang REQUIRED)
find_program(CLANGXX NAMES clang++-14 clang++ REQUIRED)
if(NOT SECONDS)
  set(SECONDS 30)
endif()
set(all_targets FuzzImage FuzzSignature FuzzMethodBody FuzzSpec FuzzPdb FuzzWeave)
if(NOT TARGETS)
  set(TARGETS ${all_targets})
endif()
# -O1 with line tables, as OSS-Fuzz builds: symbolized reports. QUICK (the test suite's slice):
# -O0, which halves the build under the sanitizers (every file compiles several times slower
# with them) and still runs every target on its seeds and beyond, if more slowly; and no line
# tables (13 % of each file's compile): its reports name functions, and the input it saves replays
# with lines in the ordinary build (weft_fuzz_regression_tests) and in ./dev fuzz.
if(QUICK)
  set(opt -O0)
else()
  set(opt "-O1 -gline-tables-only")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BUILD_DIR} -DCMAKE_BUILD_TYPE=RelWithDebInfo
          "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${opt} -DNDEBUG"
          "-DCMAKE_C_FLAGS_RELWITHDEBINFO=${opt} -DNDEBUG"
          -DCMAKE_C_COMPILER=${CLANG} -DCMAKE_CXX_COMPILER=${CLANGXX} -DWEFT_FUZZ=ON
          -DWEFT_BUILD_TESTS=OFF -DWEFT_BUILD_BENCH=OFF
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the fuzz build failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} -j2 --target ${TARGETS}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the fuzz targets failed")
endif()

# Seeds: the assemblies and PDBs of the seed folders for the file targets; small ones for the
# others.
set(seed_dir ${BUILD_DIR}/seeds)
file(REMOVE_RECURSE ${seed_dir})
file(MAKE_DIRECTORY ${seed_dir}/image ${seed_dir}/signature ${seed_dir}/body ${seed_dir}/pdb)
foreach(dir ${SEEDS})
  file(GLOB_RECURSE files "${dir}/*.dll" "${dir}/*.exe" "${dir}/*.pdb")
  foreach(f ${files})
    file(SIZE ${f} size)
    if(size LESS 120000)
      get_filename_component(name ${f} NAME)
      get_filename_component(ext ${f} LAST_EXT)
      if(ext STREQUAL ".pdb")
        file(COPY_FILE ${f} ${seed_dir}/pdb/${name} ONLY_IF_DIFFERENT)
      else()
        file(COPY_FILE ${f} ${seed_dir}/image/${name} ONLY_IF_DIFFERENT)
      endif()
    endif()
  endforeach()
endforeach()
file(WRITE ${seed_dir}/signature/method "\\x00\\x20\\x02\\x01\\x08\\x0e")
file(WRITE ${seed_dir}/body/tiny "\\x0a\\x00\\x2a")
# Specs, method bodies and PDBs: the checked-in seeds and the inputs that once found bugs.
set(regressions ${SOURCE_DIR}/tests/data/fuzz-regressions)
file(MAKE_DIRECTORY ${seed_dir}/spec ${seed_dir}/weave)
foreach(kind spec weave pdb)
  file(GLOB files "${SOURCE_DIR}/tests/fuzz/seeds/${kind}/*" "${regressions}/${kind}/*")
  foreach(f ${files})
    get_filename_component(name ${f} NAME)
    file(COPY_FILE ${f} ${seed_dir}/${kind}/${name})
  endforeach()
endforeach()

set(kind_FuzzImage image)
set(kind_FuzzSignature signature)
set(kind_FuzzMethodBody body)
set(kind_FuzzSpec spec)
set(kind_FuzzPdb pdb)
set(kind_FuzzWeave weave)
# Specs and method bodies are small; a large input only makes an execution slow.
set(max_len_FuzzSpec 65536)
set(max_len_FuzzWeave 65536)
set(status 0)
foreach(target ${TARGETS})
  set(seeds ${kind_${target}})
  set(max_len 1048576)
  if(max_len_${target})
    set(max_len ${max_len_${target}})
  endif()
  file(MAKE_DIRECTORY ${BUILD_DIR}/corpus-${seeds})
  message(STATUS "fuzzing ${target} for ${SECONDS} s")
  execute_process(
    COMMAND ${BUILD_DIR}/tests/fuzz/${target} -max_total_time=${SECONDS} -max_len=${max_len}
            -rss_limit_mb=2048 -timeout=20 -print_final_stats=1
            -artifact_prefix=${BUILD_DIR}/${target}-
            ${BUILD_DIR}/corpus-${seeds} ${seed_dir}/${seeds}
    RESULT_VARIABLE rc)
  if(rc)
    message(SEND_ERROR "${target} found a problem (see above; the input is saved as crash-*)")
    set(status 1)
  endif()
endforeach()
if(status)
  message(FATAL_ERROR "fuzzing failed")
endif()
