#!/usr/bin/env bash
# Regenerates the README's pictures with meshspec itself (tests/test_docs.py checks they are current).
set -euo pipefail
cd "$(dirname "$0")/.."
export COLUMNS=120
meshspec run scenarios/seed-uneven-copy.yaml --view map --profile all --svg docs/seed-map-all-profiles.svg > /dev/null || true
