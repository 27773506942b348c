#!/bin/sh
# Prints the packages of the module whose own code (not their tests) starts
# goroutines or shares memory between them: a go statement, a channel, or
# package sync or sync/atomic in a non-test .go file. `make test` runs the
# race detector on these; in the others it has nothing to find (no package
# holds mutable globals, docs/architecture.md#packages), and their tests run
# without it, several times faster.
set -eu
cd "$(dirname "$0")/.."
${GO:-go} list -f '{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}' ./... | while read -r pkg dir files; do
  [ -n "$files" ] || continue
  for f in $files; do
    if grep -Eq '(^|[^[:alnum:]_.])go (func|[[:alnum:]_.]+\()|chan |sync\.|atomic\.' "$dir/$f"; then
      echo "$pkg"
      break
    fi
  done
done
