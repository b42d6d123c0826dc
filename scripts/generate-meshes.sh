#!/bin/sh
# Regenerates Meshes/ (head occluder, landmarks, guide-strand styles, catalog) from the AFLW2000-3D
# landmark JSON. Deterministic: rerunning gives the same bytes; commit the result.
# COIF_TESTDATA overrides the test-data folder (default ../shared/testdata).
set -eu
cd "$(dirname "$0")/.."
exec swift run coif groom generate --out Meshes "$@"
