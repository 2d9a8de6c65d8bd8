#!/usr/bin/env bash
# Fails when a C++ file of the repository differs from what clang-format
# (Debian's, with the repository's .clang-format) makes of it, listing the
# files and the fix. New files not yet added to git are checked too (unless
# ignored), so that a file is checked before its first commit.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v clang-format >/dev/null || { echo "check_format: clang-format is missing (scripts/setup.sh installs it)" >&2; exit 1; }
unformatted=()
while IFS= read -r file; do
  clang-format --dry-run --Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
done < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' '*.h')
if ((${#unformatted[@]})); then
  echo "check_format: ${#unformatted[@]} C++ files are not formatted:" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  echo "fix: clang-format -i ${unformatted[*]}" >&2
  exit 1
fi
echo "check_format: every C++ file is formatted"
