#!/bin/sh
# Start one Redis of the combat cluster (deploy/compose.yaml, deploy/k8s): a replica of
# the primary the sentinels name now, or, when none names one (the very first start),
# the primary if this is FIRST_PRIMARY and its replica otherwise. A primary that was
# failed over and restarts thus comes back as a replica, never as a second primary.
#
# Environment: ME (the host name the others reach this Redis by), PORT (6379),
# FIRST_PRIMARY (host:port), SENTINELS (host:port ...), SERVICE (the name the sentinels
# monitor, default combat), REDIS_PASSWORD (requirepass, and the password a replica
# gives its primary), DATA (the directory of its append-only file, default /data),
# MIN_REPLICAS (1) and MIN_REPLICAS_LAG (3): a primary takes writes only while that many
# replicas answered it within that many seconds, so a primary cut off from its replicas
# stops taking writes a few seconds into the cut (the servers stop acknowledging even
# sooner: docs/deploy.md, "Partitions"). 0 turns it off.
set -eu
service="${SERVICE:-combat}"
port="${PORT:-6379}"
primary=""
for sentinel in $SENTINELS; do
  found="$(redis-cli -h "${sentinel%:*}" -p "${sentinel##*:}" --raw \
    SENTINEL get-master-addr-by-name "$service" 2>/dev/null | tr "\n" : || true)"
  found="${found%:}"
  case "$found" in ?*:[0-9]*) primary="$found"; break ;; esac
done
[ -n "$primary" ] || primary="$FIRST_PRIMARY"
set -- --port "$port" --appendonly yes --appendfsync everysec --save "" \
  --maxmemory-policy noeviction --dir "${DATA:-/data}" \
  --min-replicas-to-write "${MIN_REPLICAS:-1}" --min-replicas-max-lag "${MIN_REPLICAS_LAG:-3}" \
  --requirepass "$REDIS_PASSWORD" --masterauth "$REDIS_PASSWORD" \
  --replica-announce-ip "$ME" --replica-announce-port "$port"
if [ "$primary" != "$ME:$port" ]; then
  set -- "$@" --replicaof "${primary%:*}" "${primary##*:}"
fi
exec redis-server "$@"
