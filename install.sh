#!/bin/sh
# Ghostlight's one-line installer.
#   Published:        curl -fsSL <release URL>/install.sh | sh
#   From a checkout:  sh install.sh
# Without a checkout it fetches the release archive for this machine from GHOSTLIGHT_RELEASE_URL
# (below; set it to where the release's files are published), checks it against the release's
# SHA256SUMS, and installs with the Deno inside the archive: no Deno and no npm are needed.
# From a checkout it finds Deno (or fetches Deno from the npm registry with npx). From an
# unpacked release archive it uses the archive's own Deno. GHOSTLIGHT_SOURCE may instead name a
# .tar.gz of a checkout. Either way it runs install.ts, which runs 'ghostlight install'.
# Arguments are passed on:
#   sh install.sh --no-autostart --client claude-code --browser chrome
#   sh install.sh uninstall
set -eu

GHOSTLIGHT_VERSION=0.1.0
DENO_VERSION=2.9.6
# The one place the release's files are taken from: <URL>/ghostlight-<version>-<platform>.tar.gz
# and <URL>/SHA256SUMS. No host is assumed; set the variable to where a release is published.
GHOSTLIGHT_RELEASE_URL=${GHOSTLIGHT_RELEASE_URL:-https://ghostlight.invalid/releases/$GHOSTLIGHT_VERSION}

fail() {
  echo "install.sh: $*" >&2
  exit 1
}

# This machine's platform, as the release names it.
platform() {
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) fail "no release is built for $(uname -s); install from a checkout instead" ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    arm64 | aarch64) arch=arm64 ;;
    *) fail "no release is built for $(uname -m); install from a checkout instead" ;;
  esac
  case "$os-$arch" in
    linux-x64 | darwin-x64 | darwin-arm64) echo "$os-$arch" ;;
    *) fail "no release is built for $os-$arch; install from a checkout instead" ;;
  esac
}

fetch() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL -o "$2" "$1" || fail "could not fetch $1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || fail "could not fetch $1"
  else
    fail "fetching the release needs curl or wget"
  fi
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    fail "checking the release's sum needs sha256sum or shasum"
  fi
}

here=$(dirname -- "$0")

# An unpacked release archive: its own Deno runs the installer over its own files.
if [ -x "$here/runtime/deno" ] && [ -f "$here/install.ts" ]; then
  root=$(cd -- "$here" && pwd)
  cd "$root"
  exec "$root/runtime/deno" run -A "$root/install.ts" --sources "$@"
fi

if [ -f "$here/install.ts" ] && [ -f "$here/deno.json" ]; then
  root=$(cd -- "$here" && pwd)
elif [ -n "${GHOSTLIGHT_SOURCE:-}" ]; then
  root=$(mktemp -d "${TMPDIR:-/tmp}/ghostlight-source-XXXXXX")
  trap 'rm -rf "$root"' EXIT
  curl -fsSL "$GHOSTLIGHT_SOURCE" | tar -xz -C "$root" --strip-components=1
else
  # The release archive for this machine, checked against the release's sums before unpacking.
  name="ghostlight-$GHOSTLIGHT_VERSION-$(platform).tar.gz"
  work=$(mktemp -d "${TMPDIR:-/tmp}/ghostlight-release-XXXXXX")
  trap 'rm -rf "$work"' EXIT
  fetch "$GHOSTLIGHT_RELEASE_URL/SHA256SUMS" "$work/SHA256SUMS"
  fetch "$GHOSTLIGHT_RELEASE_URL/$name" "$work/$name"
  expected=$(awk -v name="$name" '$2 == name || $2 == "*" name { print $1 }' "$work/SHA256SUMS")
  [ -n "$expected" ] || fail "$GHOSTLIGHT_RELEASE_URL/SHA256SUMS lists no $name"
  actual=$(sha256 "$work/$name")
  if [ "$actual" != "$expected" ]; then
    fail "$name does not match its SHA-256 in SHA256SUMS ($actual, expected $expected); nothing was installed"
  fi
  mkdir "$work/release"
  tar -xzf "$work/$name" -C "$work/release" --strip-components=1
  cd "$work/release"
  "$work/release/runtime/deno" run -A "$work/release/install.ts" --sources "$@"
  exit $?
fi

if command -v deno >/dev/null 2>&1; then
  deno_command="deno"
elif command -v npx >/dev/null 2>&1; then
  deno_command="npx -y deno@$DENO_VERSION"
else
  fail "Ghostlight needs Deno, or Node's npx to fetch it: https://deno.com"
fi

cd "$root"
# The Deno command is one or three words by design.
# shellcheck disable=SC2086
$deno_command run -A "$root/install.ts" "$@"
