#!/usr/bin/env bash
# Sets up everything hakem needs on a Debian (or Raspberry Pi OS) machine: system packages,
# a virtual environment in .venv and the project installed into it. Safe to run again: it only
# does what is missing. Prints what it does on stderr so stdout stays free for the command after it.
#
#   bash setup.sh            set up
#   bash setup.sh --extras   only print the project extras this machine is installed with, and exit
#
# HAKEM_RPI_ISSUE names the file that marks Raspberry Pi OS (default /etc/rpi-issue; the tests
# point it at a file of their own); PYTHON the interpreter the venv is made from (python3).
set -euo pipefail
cd "$(dirname "$0")"

say() { printf 'setup: %s\n' "$*" >&2; }

PY="${PYTHON:-python3}"
RPI_ISSUE="${HAKEM_RPI_ISSUE:-/etc/rpi-issue}"

# On a Pi the venv also sees the OS's packages (picamera2 and libcamera come from apt). The
# venv's numpy is the one hakem is tested with (numpy 2, which OpenCV 5 needs); the OS's
# python3-simplejpeg, which picamera2 imports, is built for the OS's numpy 1 and fails under
# numpy 2 ("numpy.dtype size changed"). The "rpi" extra puts a simplejpeg built for numpy 2
# into the venv, where it is found first.
extras() {
  if [ -e "$RPI_ISSUE" ]; then printf 'dev,rpi\n'; else printf 'dev\n'; fi
}

if [ "${1:-}" = "--extras" ]; then
  extras
  exit 0
fi

# System packages: the GNU Backgammon oracle, the MQTT broker, a browser for dashboard tests,
# the libraries OpenCV's wheel links against, and venv support.
APT_PACKAGES=(gnubg mosquitto chromium chromium-driver openssl libgl1 libglib2.0-0 python3-venv)
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  say "installing system packages: ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
  || { say "python 3.11 or newer is needed, found $("$PY" --version 2>&1)"; exit 1; }

if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  # On a Pi, picamera2 comes from the OS: let the venv see system site-packages there.
  if [ -e "$RPI_ISSUE" ]; then "$PY" -m venv --system-site-packages .venv; else "$PY" -m venv .venv; fi
fi

wanted="$(extras)"
stamp=".venv/.setup-stamp"
# the extras count too: a Pi set up without the rpi extra is installed again, with it
want="$( { cat pyproject.toml; printf '%s' "$wanted"; } | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  say "installing hakem and its development tools into .venv (extras: $wanted)"
  .venv/bin/python -m pip install -q --upgrade pip >&2
  .venv/bin/python -m pip install -q -e ".[$wanted]" >&2
  echo "$want" > "$stamp"
fi
say "ready"
