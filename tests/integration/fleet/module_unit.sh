#!/usr/bin/env bash
# The collection's module unit tests (ansible/ansible_collections/piprov/pi/tests/unit):
# pytest-3 (Debian's python3-pytest, the Python ansible-core runs on) against a fake piprov.
# Usage: module_unit.sh SOURCE_DIR
export PIPROV_SOURCE_DIR=$1 PIPROV_BIN=- PIPROV_SHARED_DIR=-
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_tools pytest-3
export PYTHONDONTWRITEBYTECODE=1
pytest-3 -q -p no:cacheprovider "$PIPROV_SOURCE_DIR/ansible/ansible_collections/piprov/pi/tests/unit" \
  || fail "pytest-3 failed (output above)"
