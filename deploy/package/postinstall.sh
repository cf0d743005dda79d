#!/bin/sh
# Make systemd see the agent unit; it is not enabled: it needs
# /etc/storbench/token first (see the unit's comments).
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload >/dev/null 2>&1 || true
fi
exit 0
