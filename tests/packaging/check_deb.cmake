# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DBUILD_DIR=... -DCPACK=... -P check_deb.cmake
set(out "${BUILD_DIR}/packaging-test")
file(REMOVE_RECURSE "${out}")
execute_process(COMMAND ${CPACK} -G DEB -B "${out}" WORKING_DIRECTORY "${BUILD_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cpack failed:\n${log}")
endif()
file(GLOB debs "${out}/*.deb")
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one .deb in ${out}, found ${count}")
endif()
execute_process(COMMAND dpkg-deb --contents ${debs} OUTPUT_VARIABLE contents RESULT_VARIABLE rc)
foreach(path ./usr/bin/kwb ./usr/bin/kernel-workbench
        ./usr/share/applications/org.kernelworkbench.KernelWorkbench.desktop
        ./usr/share/metainfo/org.kernelworkbench.KernelWorkbench.metainfo.xml
        ./usr/share/icons/hicolor/scalable/apps/kernel-workbench.svg
        ./usr/lib/python3/dist-packages/kwb_worker/__main__.py ./usr/include/kwb/worker.h
        ./usr/include/kwb/worker/server.h)
  string(FIND "${contents}" "${path}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the .deb lacks ${path}:\n${contents}")
  endif()
endforeach()
execute_process(COMMAND dpkg-deb --field ${debs} Depends OUTPUT_VARIABLE depends)
message(STATUS "Depends: ${depends}")
if(depends MATCHES "cuda|nvidia|cupti")
  message(FATAL_ERROR "the .deb depends on NVIDIA packages: ${depends}")
endif()
if(NOT depends MATCHES "libqt6widgets6" OR NOT depends MATCHES "libqcustomplot")
  message(FATAL_ERROR "the .deb misses its Qt or QCustomPlot dependency: ${depends}")
endif()
