#!/usr/bin/env bash
# Install `hakem run` as a systemd service on Raspberry Pi OS.
#
#   sudo bash hardware_docs/systemd/install-table-service.sh [USER]
#
# USER (default: the user who ran sudo) runs the service; this repository, with its .venv made
# by setup.sh, is the installation. Writes /etc/systemd/system/hakem-table.service and, when
# missing, /etc/hakem/table.toml (the example configuration, journal in /var/lib/hakem), then
# enables and starts the service. Idempotent: run it again after pulling.
set -euo pipefail

if [[ $EUID -ne 0 ]]; then
  echo "install-table-service.sh: run it with sudo" >&2
  exit 2
fi
user="${1:-${SUDO_USER:-}}"
if [[ -z "$user" ]] || ! id "$user" >/dev/null 2>&1; then
  echo "install-table-service.sh: no such user: '${user}' (give the user that runs hakem)" >&2
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
hakem="$(cd "$here/../.." && pwd)"
if [[ ! -x "$hakem/.venv/bin/hakem" ]]; then
  echo "install-table-service.sh: $hakem/.venv/bin/hakem is missing: run 'bash setup.sh' first" >&2
  exit 2
fi

# the user needs the clock's serial port, the GPIO pins and the camera
usermod -aG dialout,gpio,video "$user"

install -d -m 0755 /etc/hakem
if [[ ! -f /etc/hakem/table.toml ]]; then
  sudo -u "$user" "$hakem/.venv/bin/python" -c \
    'from controller.config.table import EXAMPLE_TOML; print(EXAMPLE_TOML, end="")' \
    > /etc/hakem/table.toml
  chmod 0644 /etc/hakem/table.toml
  echo "wrote /etc/hakem/table.toml: set the players, the camera's corners and the clock's port"
fi
# check the configuration before the service ever starts with it (exit 2 names the bad key)
sudo -u "$user" "$hakem/.venv/bin/python" -c \
  'import sys; from controller.config.table import load_table_config; load_table_config(sys.argv[1])' \
  /etc/hakem/table.toml

install -d -o "$user" -g "$user" -m 0755 /var/lib/hakem
sed -e "s|@USER@|$user|g" -e "s|@HAKEM@|$hakem|g" "$here/hakem-table.service" \
  > /etc/systemd/system/hakem-table.service
chmod 0644 /etc/systemd/system/hakem-table.service
systemctl daemon-reload
systemctl enable hakem-table.service
systemctl restart hakem-table.service
systemctl --no-pager --lines=5 status hakem-table.service || true
echo "installed: journalctl -u hakem-table -f shows the live log"
