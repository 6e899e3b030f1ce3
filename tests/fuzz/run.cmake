# Builds the fuzz targets with clang and the sanitizers in their own build tree, then runs each for
# a bounded time, seeded from the corpus programs and the external corpus.
#   cmake -DSOURCE_DIR=<repo> -DBUILD_DIR=<dir> -DSEEDS=<dir;dir> -DSECONDS=<n> -P run.cmake
find_program(CLANG NAMES clang-14 clang REQUIRED)
find_program(CLANGXX NAMES clang++-14 clang++ REQUIRED)
if(NOT SECONDS)
  set(SECONDS 30)
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BUILD_DIR} -DCMAKE_BUILD_TYPE=RelWithDebInfo
          -DCMAKE_C_COMPILER=${CLANG} -DCMAKE_CXX_COMPILER=${CLANGXX} -DWEFT_FUZZ=ON
          -DWEFT_BUILD_TESTS=OFF -DWEFT_BUILD_BENCH=OFF
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the fuzz build failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} -j2
                        --target FuzzImage FuzzSignature FuzzMethodBody
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the fuzz targets failed")
endif()

# Seeds: every assembly in the seed folders for the file target; small ones for the others.
set(seed_dir ${BUILD_DIR}/seeds)
file(REMOVE_RECURSE ${seed_dir})
file(MAKE_DIRECTORY ${seed_dir}/image ${seed_dir}/signature ${seed_dir}/body)
foreach(dir ${SEEDS})
  file(GLOB_RECURSE files "${dir}/*.dll" "${dir}/*.exe")
  foreach(f ${files})
    file(SIZE ${f} size)
    if(size LESS 120000)
      get_filename_component(name ${f} NAME)
      file(COPY_FILE ${f} ${seed_dir}/image/${name} ONLY_IF_DIFFERENT)
    endif()
  endforeach()
endforeach()
file(WRITE ${seed_dir}/signature/method "\\x00\\x20\\x02\\x01\\x08\\x0e")
file(WRITE ${seed_dir}/body/tiny "\\x0a\\x00\\x2a")

set(status 0)
foreach(pair "FuzzImage;image" "FuzzSignature;signature" "FuzzMethodBody;body")
  list(GET pair 0 target)
  list(GET pair 1 seeds)
  file(MAKE_DIRECTORY ${BUILD_DIR}/corpus-${seeds})
  message(STATUS "fuzzing ${target} for ${SECONDS} s")
  execute_process(
    COMMAND ${BUILD_DIR}/tests/fuzz/${target} -max_total_time=${SECONDS} -max_len=1048576
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
