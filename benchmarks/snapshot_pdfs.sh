#!/usr/bin/env bash
# Print the absolute paths of the snapshot mix (benchmarks/data/snapshot_pdfs.txt), one per line.
here="$(cd "$(dirname "$0")" && pwd)"
shared="${DOCINTEL_SHARED:-$here/../../shared}"
grep -v '^#' "$here/data/snapshot_pdfs.txt" | sed "s|^|$shared/|"
