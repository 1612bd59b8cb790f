#!/bin/sh
# Ghostlight's one-line installer. From a checkout:   sh install.sh
# Published:   curl -fsSL <published URL>/install.sh | sh
# It finds Deno (or fetches Deno 2.9.6 from the npm registry with npx), fetches the sources when
# it is not run from a checkout (GHOSTLIGHT_SOURCE names a .tar.gz of them), and runs install.ts,
# which compiles Ghostlight where it can and runs 'ghostlight install'. Arguments are passed on:
#   sh install.sh --no-autostart --client claude-code --browser chrome
#   sh install.sh uninstall
set -eu

DENO_VERSION=2.9.6

if command -v deno >/dev/null 2>&1; then
  deno_command="deno"
elif command -v npx >/dev/null 2>&1; then
  deno_command="npx -y deno@$DENO_VERSION"
else
  echo "install.sh: Ghostlight needs Deno, or Node's npx to fetch it: https://deno.com" >&2
  exit 1
fi

here=$(dirname -- "$0")
if [ -f "$here/install.ts" ] && [ -f "$here/deno.json" ]; then
  root=$(cd -- "$here" && pwd)
else
  if [ -z "${GHOSTLIGHT_SOURCE:-}" ]; then
    echo "install.sh: run it from a Ghostlight checkout, or set GHOSTLIGHT_SOURCE to a .tar.gz of one" >&2
    exit 1
  fi
  root=$(mktemp -d "${TMPDIR:-/tmp}/ghostlight-source-XXXXXX")
  trap 'rm -rf "$root"' EXIT
  curl -fsSL "$GHOSTLIGHT_SOURCE" | tar -xz -C "$root" --strip-components=1
fi

cd "$root"
# The Deno command is one or three words by design.
# shellcheck disable=SC2086
$deno_command run -A "$root/install.ts" "$@"
