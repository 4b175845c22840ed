# Sourced by the scripts after scripts/setup has made .venv/: puts the
# project's Python environment (Halide 21, CMake) first in PATH and sets
# HALIDE_CMAKE_ARGS, the CMake arguments that find the wheel's Halide (its
# package lives under lib64/, which CMake does not search on Debian).
venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv"
export PATH="$venv/bin:$PATH"
halide_dir=$("$venv/bin/python" -c 'import halide; print(halide.install_dir())') || {
  echo "the halide wheel is missing from $venv; run scripts/setup" >&2; return 1; }
HALIDE_CMAKE_ARGS=("-DHalide_DIR=$halide_dir/lib64/cmake/Halide"
                   "-DHalideHelpers_DIR=$halide_dir/lib64/cmake/HalideHelpers")
