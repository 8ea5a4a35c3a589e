#!/usr/bin/env bash
# Creates (or reuses) the interop venv: pinned llama-cpp-python[server] (CPU build from the sdist),
# litellm[proxy] and gguf. The venv is cached in $ROBOTA_INTEROP_VENV (default
# ~/.cache/robota-interop/venv-<pins hash>) so a second run skips the ~6 minute build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pins="$here/requirements.txt"
hash="$(sha256sum "$pins" | cut -c1-12)"
venv="${ROBOTA_INTEROP_VENV:-$HOME/.cache/robota-interop/venv-$hash}"
if [ -x "$venv/bin/python" ] && [ -f "$venv/.complete" ]; then
  echo "$venv"
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --upgrade pip >&2
# A small CPU build: no native tuning (portable), no tests/examples/tools, no server of llama.cpp's own.
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_OPENMP=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF -DGGML_BLAS=OFF -DLLAVA_BUILD=OFF -DLLAMA_LLAVA=OFF -DGGML_CCACHE=OFF"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
"$venv/bin/pip" install --quiet -r "$pins" >&2
touch "$venv/.complete"
echo "$venv"
