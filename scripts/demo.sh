#!/usr/bin/env bash
# Quick-start command (a): set up, build, and run the demo: dnn-top selects 50
# of the 784 pixels of Fashion-MNIST (from the Debian package) on the 60000
# training images, ExtraTrees (50 trees) trained on those 50 pixels is scored
# on the 10000 test images, and the result and a picture of the chosen pixels
# are written.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TOPKFS_BUILD_DIR:-$root/build}"
data=/usr/share/datasets/fashion-mnist
out="${TOPKFS_DEMO_DIR:-$root/demo-output}"

"$root/scripts/setup.sh"
"$root/scripts/build.sh"
mkdir -p "$out"
topkfs="$build/apps/topkfs/topkfs"

echo "== topkfs info $data"
"$topkfs" info "$data"
echo
echo "== topkfs select $data --method dnn-top --k 50 --score"
"$topkfs" select "$data" --method dnn-top --k 50 --seed 0 --score \
  --output "$out/result.json" --picture "$out/selection.png"
echo
echo "result:  $out/result.json"
echo "picture: $out/selection.png (selected pixels in red over the mean training image)"
