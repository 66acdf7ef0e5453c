#!/usr/bin/env bash
# What the end-to-end tests need beyond cargo, Node and the npm registry
# (which the harness installs itself), from Debian: chromium, for the test
# that opens the HTML report headless, and bubblewrap, the OS sandbox of the
# probes and the project loader (docs/isolation.md), which the tests prove.
# Idempotent; run as root (CI is).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "make test needs Debian's ${missing[*]} (the HTML report test, the sandbox tests); run 'sudo make setup' once" >&2
    exit 1
  fi
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
chromium --version
bwrap --version
