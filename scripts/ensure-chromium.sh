#!/usr/bin/env sh
# Makes sure Debian's Chromium is at /usr/bin/chromium for the browser tests
# (test/browser/browser.test.ts) and scripts/screenshots.ts. playwright-core drives it; we never
# let Playwright download a browser of its own. Installing needs root (as in CI). The
# fonts the page needs come with Chromium's fontconfig dependency; recommends (printer
# setup, udev, a notification daemon…) are of no use headless.
set -eu
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
sh "$(dirname "$0")/apt-install.sh" "the browser tests" chromium
if [ ! -x "$CHROMIUM" ]; then
  echo "kurz: apt-get finished but $CHROMIUM is still missing" >&2
  exit 1
fi
