"""Builds the onnx_legalize extension with CMake for `python3 -m build --wheel --no-isolation`.

pyproject.toml holds the metadata; this only adds what it cannot say: the version (CMakeLists.txt's, so
there is one) and an extension built by this project's own CMake build rather than by setuptools. The
build reuses build/ (scripts/build.sh's; ONNX_LEGALIZE_BUILD_DIR names another) and builds only the
module's target there; setuptools' own files go under its wheel/ folder, out of CMake's way.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
BUILD_DIR = pathlib.Path(os.environ.get("ONNX_LEGALIZE_BUILD_DIR", ROOT / "build")).resolve()
SETUPTOOLS_DIR = BUILD_DIR / "wheel"


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    return re.search(r"project\(onnx_legalize VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = BUILD_DIR
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), f"-DPython3_EXECUTABLE={sys.executable}"]
        if not (build_dir / "CMakeCache.txt").exists():
            configure.append("-DCMAKE_BUILD_TYPE=RelWithDebInfo")
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "onnx_legalize_python",
                        "-j", str(os.cpu_count() or 1)], check=True)
        built = build_dir / "python" / "onnx_legalize" / os.path.basename(self.get_ext_filename(ext.name))
        if not built.exists():
            raise RuntimeError(f"CMake did not build {built} (a Python other than the build's?)")
        destination = pathlib.Path(self.get_ext_fullpath(ext.name))
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, destination)
        # The build's RelWithDebInfo module carries the whole library's debug information (about 30 MB):
        # a wheel does not need it.
        if shutil.which("strip"):
            subprocess.run(["strip", "--strip-debug", str(destination)], check=True)


SETUPTOOLS_DIR.mkdir(parents=True, exist_ok=True)
setup(
    version=project_version(),
    ext_modules=[Extension("onnx_legalize._onnx_legalize", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(SETUPTOOLS_DIR)}, "egg_info": {"egg_base": str(SETUPTOOLS_DIR)}},
)
