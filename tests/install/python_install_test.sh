#!/usr/bin/env bash
# The Python install test: in a temporary folder, a virtual environment made
# with --system-site-packages (Debian's numpy and scikit-learn), then
#   python3 -m pip install --no-build-isolation .   -> `import topkfs` from any folder
#   python3 -m build --no-isolation --wheel         -> a wheel with the extension
# Nothing is fetched (--no-index). TOPKFS_BUILD_DIR points setup.py at this
# build folder, so the extension is the one already built here instead of a
# second build of the whole library.
#   python_install_test.sh SOURCE_DIR BUILD_DIR VERSION
set -euo pipefail
source_dir=$1
build_dir=$2
version=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/topkfs-python-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TOPKFS_BUILD_DIR=$build_dir

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
python="$work/venv/bin/python"
"$python" -m pip install --quiet --no-build-isolation --no-index "$source_dir"

cd "$work"  # away from the sources: the installed package must be the one imported
"$python" - "$version" "$work/venv" <<'PY'
import sys
import numpy as np
import topkfs

version, venv = sys.argv[1], sys.argv[2]
assert topkfs.__version__ == version, (topkfs.__version__, version)
assert topkfs.__file__.startswith(venv), topkfs.__file__
assert "lasso" in topkfs.methods()
rng = np.random.default_rng(0)
X = rng.normal(size=(200, 8)).astype(np.float32)
y = 3 * X[:, 2] - 2 * X[:, 5] + 0.05 * rng.normal(size=200)
selector = topkfs.TopKSelector("lasso", k=2).fit(X, y)
assert sorted(selector.selected_) == [2, 5], selector.selected_
print("pip install: topkfs", topkfs.__version__, "from", topkfs.__file__)
PY

# An HDF5 file, read in the HDF5 reader program that the package carries
# beside its module (looked for there first).
/usr/bin/python3 -c "
import h5py, numpy as np
with h5py.File('$work/small.h5', 'w') as f:
    f['X'] = np.arange(12.0).reshape(6, 2)
    f['Y'] = np.arange(6) % 2"
read_hdf5='
import os, sys
import topkfs
reader = os.path.join(os.path.dirname(topkfs.__file__), "topkfs-hdf5-reader")
assert os.access(reader, os.X_OK), reader
data = topkfs.load(sys.argv[1])
assert data.X.shape == (6, 2) and data.X[5, 1] == 11, data.X
print("HDF5 read with", reader)
'
"$python" -c "$read_hdf5" "$work/small.h5"

/usr/bin/python3 -m build --no-isolation --wheel --outdir "$work/dist" "$source_dir" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; exit 1; }
wheel=$(ls "$work"/dist/topkfs-"$version"-*.whl)
/usr/bin/python3 - "$wheel" <<'PY'
import sys
import zipfile

wheel = zipfile.ZipFile(sys.argv[1])
names = wheel.namelist()
assert any(n.startswith("topkfs/_topkfs") and n.endswith(".so") for n in names), names
assert "topkfs/__init__.py" in names, names
reader = wheel.getinfo("topkfs/topkfs-hdf5-reader")
assert (reader.external_attr >> 16) & 0o111, oct(reader.external_attr >> 16)  # executable
print("wheel:", sys.argv[1].rsplit("/", 1)[-1])
PY

# The wheel installed in a fresh environment reads the HDF5 file.
/usr/bin/python3 -m venv --system-site-packages "$work/wheel-venv"
"$work/wheel-venv/bin/python" -m pip install --quiet --no-index --no-deps "$wheel"
"$work/wheel-venv/bin/python" -c "$read_hdf5" "$work/small.h5"
