#!/usr/bin/env bash
# Installs every Debian 12 package topkfs needs to build, test and run its demo.
# Idempotent: when everything is present it installs nothing and prints nothing.
set -euo pipefail

packages=(
  # toolchain, and the formatter CI checks the C++ files with
  build-essential cmake pkg-config git clang-format
  # neural models; the fast BLAS is REQUIRED: without libopenblas0-pthread,
  # Debian's libtorch falls back to the reference BLAS (about 15x slower)
  libtorch-dev libopenblas0-pthread libgloo-dev
  # cblas.h for the linear models' Gram products on the same OpenBLAS
  libblas-dev
  # linear algebra, file formats, compression
  libeigen3-dev libmatio-dev libhdf5-dev zlib1g-dev libdeflate-dev
  # command line, JSON, formatting, pictures
  libcli11-dev nlohmann-json3-dev libfmt-dev libpng-dev
  # tests and micro-benchmarks
  libgtest-dev libbenchmark-dev
  # fuzzing the readers (scripts/fuzz.sh): libFuzzer ships only with clang,
  # in its runtime package; GCC builds everything else
  clang libclang-rt-14-dev
  # Python face and scikit-learn cross-checks (Debian's /usr/bin/python3)
  pybind11-dev python3-dev python3-numpy python3-sklearn python3-scipy python3-pytest
  python3-matplotlib python3-h5py
  # DataFrames in and out of the Python package (optional at run time; its
  # tests need it)
  python3-pandas
  # pip install / python3 -m build of the Python package, offline (docs/python.md)
  python3-venv python3-pip python3-setuptools python3-wheel python3-build
  # R's glmnet: the reference of the multinomial family's golden values
  # (tests/linear/make_class_golden.py) and of its path benchmark
  # (bench/linear/linear_class_vs_references.sh); nothing builds or runs against it
  r-cran-glmnet
  # demo data: Fashion-MNIST under /usr/share/datasets/fashion-mnist/
  dataset-fashion-mnist
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "topkfs setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
