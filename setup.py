"""Builds the topkfs Python package with the project's own CMake build.

The pure-Python modules come from python/topkfs; the extension _topkfs is the
CMake target of the same name (python/CMakeLists.txt), built in a CMake build
folder and copied into the package, with the HDF5 reader program
topkfs-hdf5-reader beside it (HDF5 and MATLAB v7.3 files are read in that
program; the library looks for it beside the module first). The version is the one set in the
top-level CMakeLists.txt (project(topkfs VERSION ...)).

TOPKFS_BUILD_DIR names a CMake build folder to build in (an existing one is
built incrementally and never reconfigured); without it the build goes to a
folder of its own under setuptools' build folder.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def cmake_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(\s*topkfs\s+VERSION\s+([0-9][0-9.]*)", text)
    if not match:
        raise RuntimeError("CMakeLists.txt: no project(topkfs VERSION ...)")
    return match.group(1)


class CMakeBuild(build_ext):
    """Builds _topkfs with CMake and copies it where setuptools expects it."""

    def build_extension(self, ext):
        build_dir = Path(os.environ.get("TOPKFS_BUILD_DIR") or Path(self.build_temp) / "cmake")
        build_dir = build_dir.resolve()
        if not (build_dir / "CMakeCache.txt").exists():
            subprocess.run(
                ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                 "-DTOPKFS_BUILD_TESTS=OFF", "-DTOPKFS_BUILD_BENCH=OFF",
                 f"-DPYTHON_EXECUTABLE={sys.executable}"],
                check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_topkfs", "--parallel", jobs],
                       check=True)
        built = sorted((build_dir / "python" / "topkfs").glob("_topkfs*.so"))
        if not built:
            raise RuntimeError(f"{build_dir}: the build made no _topkfs module")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], target)
        reader = build_dir / "python" / "topkfs" / "topkfs-hdf5-reader"
        if not reader.exists():
            raise RuntimeError(f"{build_dir}: the build made no HDF5 reader program ({reader})")
        shutil.copy2(reader, target.parent / reader.name)  # copy2 keeps it executable


setup(
    version=cmake_version(),
    packages=["topkfs"],
    package_dir={"": "python"},
    ext_modules=[Extension("topkfs._topkfs", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own build folders, apart from a CMake build in build/.
    options={"build": {"build_base": "build/setuptools"}},
    zip_safe=False,
)
