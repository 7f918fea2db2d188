#!/bin/sh
# Start one sentinel of the combat cluster: it watches the primary the other sentinels
# name now (FIRST_PRIMARY when none does, on the very first start), under SERVICE, and
# agrees a failover with one other sentinel (quorum 2 of 3).
#
# Environment: ME (the host name the others reach this sentinel by), PORT (26379),
# FIRST_PRIMARY (host:port), SENTINELS (host:port ... of all three), SERVICE (default
# combat), REDIS_PASSWORD, DOWN_AFTER_MS (how long a silent primary has before it is
# down; default 5000), DATA (where its file goes, default /data).
set -eu
service="${SERVICE:-combat}"
port="${PORT:-26379}"
data="${DATA:-/data}"
primary=""
for sentinel in $SENTINELS; do
  [ "$sentinel" = "$ME:$port" ] && continue
  found="$(redis-cli -h "${sentinel%:*}" -p "${sentinel##*:}" --raw \
    SENTINEL get-master-addr-by-name "$service" 2>/dev/null | tr "\n" : || true)"
  found="${found%:}"
  case "$found" in ?*:[0-9]*) primary="$found"; break ;; esac
done
[ -n "$primary" ] || primary="$FIRST_PRIMARY"
mkdir -p "$data"
# the sentinel rewrites its file as it learns the cluster: a fresh one at each start
cat >"$data/sentinel.conf" <<CONF
port $port
dir $data
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel announce-ip $ME
sentinel announce-port $port
sentinel monitor $service ${primary%:*} ${primary##*:} 2
sentinel auth-pass $service $REDIS_PASSWORD
sentinel down-after-milliseconds $service ${DOWN_AFTER_MS:-5000}
sentinel failover-timeout $service 60000
sentinel parallel-syncs $service 1
CONF
exec redis-server "$data/sentinel.conf" --sentinel
