# SPDX-License-Identifier: GPL-3.0-or-later
# KWB_WITH_CUDA: AUTO builds the GPU backend plugin when nvcc is found, ON requires it, OFF skips it.
set(KWB_CUDA_ENABLED OFF)
if(NOT KWB_WITH_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # KWB_CUDA_ARCHS: the targets the plugin is built for. The default (Ampere, Ada, Hopper as
    # SASS, plus PTX of the newest so later parts JIT) is what the package and the GPU machine
    # build; CI may pass -DKWB_CUDA_ARCHS=90-real to build sm_90 only, in a third of the time.
    set(KWB_CUDA_ARCHS "80-real;89-real;90-real;90-virtual" CACHE STRING
        "CUDA architectures of the GPU backend plugin (CMAKE_CUDA_ARCHITECTURES syntax)")
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES ${KWB_CUDA_ARCHS})
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(KWB_CUDA_ENABLED ON)
  elseif(KWB_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "KWB_WITH_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER)")
  else()
    message(STATUS "No CUDA compiler: the GPU backend plugin is not built (KWB_WITH_CUDA=AUTO)")
  endif()
endif()
