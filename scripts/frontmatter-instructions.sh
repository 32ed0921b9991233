#!/bin/sh
# Instructions of one `frontmatter::parse` per worst-case shape of
# crates/skill-core/benches/frontmatter_worst.rs, counted by callgrind: repeatable on
# a loaded machine, unlike wall time. For each case (or each whose name holds
# $1), the bench runs under callgrind with `--runs 1` and with `--runs 0` (its
# input built, nothing parsed); the difference is one parse.
#   sh scripts/frontmatter-instructions.sh [CASE-TEXT]
# BENCH_BIN=path counts another build of the bench (for a before/after
# table: build the other checkout's bench and copy its binary first).
set -eu
cd "$(dirname "$0")/.."
if [ -n "${BENCH_BIN:-}" ]; then
  bin=$BENCH_BIN
else
  cargo bench -p skill-core --bench frontmatter_worst --no-run >/dev/null 2>&1
  bin=$(ls -t target/release/deps/frontmatter_worst-* | grep -v '\.d$' | head -n 1)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$bin" --case "$1" --runs "$2" >/dev/null 2>"$out/log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/log"
}
"$bin" --list | while IFS= read -r name; do
  if [ -n "${1:-}" ]; then case "$name" in *"$1"*) ;; *) continue ;; esac; fi
  one=$(count "$name" 1)
  none=$(count "$name" 0)
  printf '%-60s %8.1f M\n' "$name" "$(echo "($one - $none) / 1000000" | bc -l)"
done
