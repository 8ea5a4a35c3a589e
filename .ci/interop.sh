#!/usr/bin/env bash
# Interop against real model servers (llama-cpp-python's server, LiteLLM proxy) on 127.0.0.1:
# see tests/interop/run.sh. Needs python3 with venv and a C compiler; the pip packages are
# installed into a cached venv (~/.cache/robota-interop).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -m venv --help >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
fi
exec bash tests/interop/run.sh
