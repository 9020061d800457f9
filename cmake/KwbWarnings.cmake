# SPDX-License-Identifier: GPL-3.0-or-later
# Warnings and Qt defines every project target links, so they live in one place.
add_library(kwb_warnings INTERFACE)
target_compile_options(kwb_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor>)
add_library(kwb_qt_defines INTERFACE)
target_compile_definitions(kwb_qt_defines INTERFACE
  QT_NO_CAST_FROM_ASCII QT_USE_QSTRINGBUILDER QT_NO_URL_CAST_FROM_STRING QT_NO_NARROWING_CONVERSIONS_IN_CONNECT)
