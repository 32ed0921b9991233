#!/bin/sh
# Usage: collect-changes.sh <previous-tag>
# Prints "#<number> <area>: <title>" for every merge commit since the tag.
set -eu
since="${1:?usage: collect-changes.sh <previous-tag>}"
git log --merges --format='%s' "${since}..HEAD" |
  sed -n 's/^Merge pull request #\([0-9]*\) from [^ ]*\/\([a-z]*\)-.*$/#\1 \2/p'
