#!/usr/bin/env bash
# Regenerates the README's picture with meshspec itself (tests/test_docs.py checks it is current):
# the seed's mesh map under its own profile, 80 columns wide so that it reads at README width.
# It is written to a new file and moved into place: meshspec never replaces a file it cannot show
# it wrote as it is (files.py), and a fresh clone's committed picture is not one this machine wrote.
set -euo pipefail
cd "$(dirname "$0")/.."
export COLUMNS=80
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meshspec run scenarios/seed-uneven-copy.yaml --view map --svg "$tmp/seed.svg" > /dev/null || [[ $? -eq 1 ]]
mv "$tmp/seed.svg" docs/seed-map.svg
