# Finds Scotch 7 (Debian: libscotch-dev). Defines SCOTCH::SCOTCH.
# Scotch reports errors through SCOTCH_errorPrint, which the program must
# provide. libmap defines it (keeping the message instead of printing), so
# neither libscotcherr (prints) nor libscotcherrexit (exits) is linked.
find_path(SCOTCH_INCLUDE_DIR scotch.h PATH_SUFFIXES scotch)
find_library(SCOTCH_LIBRARY scotch)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SCOTCH REQUIRED_VARS SCOTCH_LIBRARY SCOTCH_INCLUDE_DIR)
if(SCOTCH_FOUND AND NOT TARGET SCOTCH::SCOTCH)
  add_library(SCOTCH::SCOTCH UNKNOWN IMPORTED)
  set_target_properties(SCOTCH::SCOTCH PROPERTIES
    IMPORTED_LOCATION "${SCOTCH_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SCOTCH_INCLUDE_DIR}")
endif()
