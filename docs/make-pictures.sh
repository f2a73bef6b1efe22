#!/usr/bin/env bash
# Regenerates the README's pictures with meshspec itself (tests/test_docs.py checks they are current).
# Each is written to a new file and moved into place: meshspec never replaces a file it cannot show
# it wrote as it is (files.py), and a fresh clone's committed picture is not one this machine wrote.
set -euo pipefail
cd "$(dirname "$0")/.."
export COLUMNS=120
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meshspec run scenarios/seed-uneven-copy.yaml --view map --profile all --svg "$tmp/seed.svg" > /dev/null || [[ $? -eq 1 ]]
mv "$tmp/seed.svg" docs/seed-map-all-profiles.svg
