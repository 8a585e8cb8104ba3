# Sourced by build.sh, example.sh and sanitize.sh: CMake's generator and
# compiler launcher. Ninja where it is installed, for a folder configured
# for the first time (a folder keeps the generator it was made with);
# ccache where it is installed, with the source folder as its base so that
# clones at other paths share its results.
# Usage: configure_args BUILD_DIR; then cmake ... "${configure_args[@]}"
configure_args() {
  configure_args=()
  if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja >/dev/null; then configure_args+=(-G Ninja); fi
  if command -v ccache >/dev/null; then
    configure_args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    CCACHE_BASEDIR=$(pwd)
    export CCACHE_BASEDIR
  fi
}
