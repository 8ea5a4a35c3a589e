#!/usr/bin/env bash
# archive.sh PREFIX NAME : archives/NAME.tar.gz (archives/NAME.zip on Windows) holding PREFIX's
# files under the directory NAME, symbolic links kept (tar).
set -euo pipefail
prefix=$1 name=$2
[[ -d "$prefix" ]] || { echo "::error::no directory $prefix to archive"; exit 1; }
mkdir -p archives
rm -rf "archives/$name"
cp -a "$prefix" "archives/$name"
cd archives
if [[ "${RUNNER_OS:-}" == Windows ]]; then
  7z a -tzip "$name.zip" "$name" >/dev/null
else
  tar -czf "$name.tar.gz" "$name"
fi
rm -rf "$name"
ls -l
