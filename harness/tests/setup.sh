#!/usr/bin/env bash
# What the end-to-end tests need beyond cargo, Node and the npm registry
# (which the harness installs itself): Debian's chromium, for the test that
# opens the HTML report headless. Idempotent; run as root (CI is).
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "make test needs Debian's chromium (for the HTML report test); run 'sudo make setup' once" >&2
    exit 1
  fi
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
fi
chromium --version
