#!/usr/bin/env bash
# Install `hakem run` as a systemd service on Raspberry Pi OS.
#
#   sudo bash hardware_docs/systemd/install-table-service.sh [USER]
#
# USER (default: the user who ran sudo) runs the service; this repository, with its .venv made
# by setup.sh, is the installation. Writes /etc/systemd/system/hakem-table.service and, when
# missing, /etc/hakem/table.toml (the example configuration, journal in /var/lib/hakem; made
# root:GROUP 0640 each run, GROUP being USER's), then enables and starts the service.
# Idempotent: run it again after pulling.
#
# For a test without a Pi (tests/controller/test_install_service.py):
#   HAKEM_ROOT=DIR       install under DIR instead of / (DIR/etc/hakem, DIR/etc/systemd/...)
#   HAKEM_DRY_RUN=1      no root needed; usermod and systemctl are printed, not run
set -euo pipefail

root="${HAKEM_ROOT:-}"
dry="${HAKEM_DRY_RUN:-}"

run() {  # a command that changes the system: printed on a dry run
  if [[ -n "$dry" ]]; then
    echo "would run: $*"
  else
    "$@"
  fi
}

if [[ -z "$dry" && $EUID -ne 0 ]]; then
  echo "install-table-service.sh: run it with sudo" >&2
  exit 2
fi
user="${1:-${SUDO_USER:-}}"
if [[ -z "$user" ]]; then  # e.g. "$USER" unset under sudo, in a root shell without sudo
  echo "install-table-service.sh: the user name is empty: name the user that runs hakem," \
    "e.g. sudo bash hardware_docs/systemd/install-table-service.sh pi" >&2
  exit 2
fi
if [[ -z "${1:-}" && "$user" == "root" ]]; then  # sudo from a root shell: SUDO_USER is root
  echo "install-table-service.sh: no user named and sudo was run by root: name the user that" \
    "runs hakem (not root), e.g. sudo bash hardware_docs/systemd/install-table-service.sh pi" >&2
  exit 2
fi
if ! id "$user" >/dev/null 2>&1; then
  echo "install-table-service.sh: no such user: '${user}' (give the user that runs hakem)" >&2
  exit 2
fi
group="$(id -gn "$user")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
hakem="$(cd "$here/../.." && pwd)"
if [[ ! -x "$hakem/.venv/bin/hakem" ]]; then
  echo "install-table-service.sh: $hakem/.venv/bin/hakem is missing: run 'bash setup.sh' first" >&2
  exit 2
fi

as_user() {  # run as the service's user (directly when that is who runs this script)
  if [[ "$(id -un)" == "$user" ]]; then
    "$@"
  else
    runuser -u "$user" -- "$@"
  fi
}

config="$root/etc/hakem/table.toml"
unit="$root/etc/systemd/system/hakem-table.service"
state="$root/var/lib/hakem"

# the user needs the clock's serial port, the GPIO pins and the camera
run usermod -aG dialout,gpio,video "$user"

install -d -m 0755 "$root/etc/hakem"
if [[ ! -f "$config" ]]; then
  as_user "$hakem/.venv/bin/python" -c \
    'from controller.config.table import EXAMPLE_TOML; print(EXAMPLE_TOML, end="")' \
    > "$config"
  echo "wrote $config: set the players, the camera's corners and the clock's port"
fi
# root edits it, the service's group reads it: no one else (hub.url may hold a password)
chmod 0640 "$config"
run chown "root:$group" "$config"
# check the configuration before the service ever starts with it: one line naming the bad key
if ! problem="$(as_user "$hakem/.venv/bin/python" -c \
    'import sys; from controller.config.table import load_table_config; load_table_config(sys.argv[1])' \
    "$config" 2>&1)"; then
  echo "install-table-service.sh: $config: $(printf '%s\n' "$problem" | tail -n 1)" >&2
  echo "install-table-service.sh: fix it and run this again; the service was not installed" >&2
  exit 2
fi

if [[ -n "$dry" ]]; then
  install -d -m 0755 "$state"
else
  install -d -o "$user" -g "$group" -m 0755 "$state"
fi
install -d -m 0755 "$(dirname "$unit")"
sed -e "s|@USER@|$user|g" -e "s|@GROUP@|$group|g" -e "s|@HAKEM@|$hakem|g" \
  "$here/hakem-table.service" > "$unit"
chmod 0644 "$unit"
run systemctl daemon-reload
run systemctl enable hakem-table.service
run systemctl restart hakem-table.service
if [[ -z "$dry" ]]; then
  systemctl --no-pager --lines=5 status hakem-table.service || true
fi
echo "installed $unit: journalctl -u hakem-table -f shows the live log"
