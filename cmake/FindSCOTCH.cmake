# Finds Scotch 7 (Debian: libscotch-dev). Defines SCOTCH::SCOTCH.
# libscotcherr is Scotch's error handler that prints to stderr but does not
# exit; libscotcherrexit (which exits) must never be linked into a library.
find_path(SCOTCH_INCLUDE_DIR scotch.h PATH_SUFFIXES scotch)
find_library(SCOTCH_LIBRARY scotch)
find_library(SCOTCH_ERR_LIBRARY scotcherr)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SCOTCH
  REQUIRED_VARS SCOTCH_LIBRARY SCOTCH_ERR_LIBRARY SCOTCH_INCLUDE_DIR)
if(SCOTCH_FOUND AND NOT TARGET SCOTCH::SCOTCH)
  add_library(SCOTCH::SCOTCH UNKNOWN IMPORTED)
  set_target_properties(SCOTCH::SCOTCH PROPERTIES
    IMPORTED_LOCATION "${SCOTCH_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SCOTCH_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${SCOTCH_ERR_LIBRARY}")
endif()
