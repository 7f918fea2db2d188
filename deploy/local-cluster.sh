#!/usr/bin/env bash
# A combat-server cluster on this machine, without containers: a redis-server and
# three server processes sharing it, all on loopback (127.0.0.1) on free ports. For
# tests and demos; docs/deploy.md has the real deployments.
#
#   deploy/local-cluster.sh [DIR]
#
# DIR keeps Redis's append-only file and each server's data dir and log (a fresh
# temporary directory by default). It prints Redis's URL, each server's websocket URL
# and, on a first start, the commands to join the demo fight (any server will do: they
# share every room). Ctrl-C or SIGTERM stops everything it started, gracefully.
#
# Environment: PYTHON (default: the project's .venv/bin/python), SERVERS (3),
# LEASE_TTL (seconds, 5), REDIS_SERVER (redis-server), APPENDFSYNC (everysec; or
# always, no: see docs/deploy.md, "Durability").
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-$root/.venv/bin/python}"
servers="${SERVERS:-3}"
lease_ttl="${LEASE_TTL:-5}"
redis_server="${REDIS_SERVER:-redis-server}"
appendfsync="${APPENDFSYNC:-everysec}"
dir="${1:-$(mktemp -d -t combat-cluster.XXXXXX)}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

pids=()
stop() {
  trap - INT TERM EXIT
  # servers first (they hand their rooms over and close with 1001), Redis last
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || true
    wait "${pids[i]}" 2>/dev/null || true
  done
}
trap stop INT TERM EXIT

free_port() {
  "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_for_line() { # FILE PATTERN PID: wait until FILE has a line matching PATTERN
  for _ in $(seq 1 300); do
    if grep -q -- "$2" "$1" 2>/dev/null; then return 0; fi
    if ! kill -0 "$3" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "local-cluster: gave up waiting for '$2' in $1" >&2
  cat "$1" >&2 || true
  return 1
}

redis_port="$(free_port)"
"$redis_server" --port "$redis_port" --bind 127.0.0.1 --dir "$dir" \
  --appendonly yes --appendfsync "$appendfsync" --save '' \
  --maxmemory-policy noeviction --logfile "$dir/redis.log" &
pids+=("$!")
wait_for_line "$dir/redis.log" "Ready to accept connections" "${pids[0]}"
redis_url="redis://127.0.0.1:$redis_port/0"
echo "redis:    $redis_url (append-only file in $dir, appendfsync $appendfsync)"

for n in $(seq 1 "$servers"); do
  out="$dir/server-$n.out"
  : >"$out"
  (cd "$root" && exec "$python" -m server --host 127.0.0.1 --port 0 --web-port 0 \
    --data-dir "$dir/server-$n" --redis "$redis_url" --lease-ttl "$lease_ttl") \
    >"$out" 2>"$dir/server-$n.log" &
  pids+=("$!")
  wait_for_line "$out" "serving on" "$!"
  url="$(sed -n 's/.*serving on \(ws:[^ ]*\).*/\1/p' "$out" | head -n 1)"
  echo "server $n: $url (pid ${pids[-1]}, log $dir/server-$n.log)"
  if [[ $n == 1 ]]; then # a first start prints the demo's join commands next
    for _ in $(seq 1 20); do
      if grep -q "Create your own encounter" "$out"; then break; fi
      sleep 0.1
    done
    sed -n '2,$p' "$out"
  fi
done
echo "cluster ready: ${servers} servers on one Redis. Ctrl-C stops it."

wait "${pids[@]}"
