#!/usr/bin/env bash
# The main job on a built-in default. Grows with each module:
# provision a Ubuntu-layout image onto an emulated USB SSD, check an EEPROM
# config, benchmark SSD vs microSD. Needs root (loop devices).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
piprov=build/src/cli/piprov
echo "== piprov devices"
"$piprov" devices
