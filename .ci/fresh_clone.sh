#!/usr/bin/env bash
# The README's two commands in a clone of the repository with nothing beside it, as anyone who
# clones it has: proves that no build, test or example reads a file from outside the repository.
# Only the build cache is shared (the clone's target/ links to this checkout's), so the
# dependencies are not compiled twice; every source file comes from the clone.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
mkdir -p "$root/target"
empty="$(mktemp -d /tmp/robota-fresh.XXXXXX)"
trap 'rm -rf "$empty"' EXIT
git clone --quiet --no-hardlinks "$root" "$empty/robota"
ln -s "$root/target" "$empty/robota/target"
cd "$empty/robota"
echo "fresh clone of $(git rev-parse --short HEAD) in $empty/robota; beside it: $(ls -A "$empty" | tr '\n' ' ')"
# The README's two commands, exactly (no terminal: chat answers one pass and exits).
grep -q '^make -C examples-c run' README.md && grep -q '^cargo test' README.md \
  || { echo "README.md no longer prints the two commands this step runs"; exit 1; }
make -C examples-c run </dev/null
cargo test
