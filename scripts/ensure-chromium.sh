#!/usr/bin/env sh
# Makes sure Debian's Chromium is at /usr/bin/chromium for the browser tests
# (test/browser.test.ts) and scripts/screenshots.ts. playwright-core drives it; we never
# let Playwright download a browser of its own. Installing needs root (as in CI).
set -eu
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "kurz: $CHROMIUM is missing and installing it needs root;" >&2
  echo "      run as root: apt-get update && apt-get install -y chromium" >&2
  exit 1
fi
echo "kurz: installing chromium with apt-get (needed by the browser tests)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update >&2
# Recommends (printer setup, udev, a notification daemon…) are of no use headless; the
# fonts the page needs come with Chromium's fontconfig dependency.
apt-get install -y --no-install-recommends chromium >&2
if [ ! -x "$CHROMIUM" ]; then
  echo "kurz: apt-get finished but $CHROMIUM is still missing" >&2
  exit 1
fi
