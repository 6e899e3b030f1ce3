# Restores tests/il-tools/IlTools.csproj with the version of the newest installed
# Microsoft.NETCore.App, so that ilasm and ildasm are the ones of the runtime the tests run on.
#
#   cmake -DDOTNET=dotnet -DPROJECT=IlTools.csproj -DARTIFACTS=dir -P restore.cmake
execute_process(COMMAND ${DOTNET} --list-runtimes OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dotnet --list-runtimes failed (${rc})")
endif()
# Lines like "Microsoft.NETCore.App 10.0.12 [/usr/share/dotnet/shared/Microsoft.NETCore.App]",
# in ascending order of version.
string(REGEX MATCHALL "Microsoft\\.NETCore\\.App [^ ]+" found "${listing}")
if(NOT found)
  message(FATAL_ERROR "no Microsoft.NETCore.App in:\n${listing}")
endif()
list(GET found -1 newest)
string(REPLACE "Microsoft.NETCore.App " "" version "${newest}")
message(STATUS "ilasm and ildasm ${version}")
execute_process(COMMAND ${DOTNET} restore ${PROJECT} -p:IlToolsVersion=${version}
                        --artifacts-path ${ARTIFACTS} -nologo -v:q
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "restoring ${PROJECT} for version ${version} failed (${rc})")
endif()
