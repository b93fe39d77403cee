#!/usr/bin/env bash
# Records the manager's AOT cache (JDK 25+, JEP 483/514/515): starts the packaged manager with
# -XX:AOTCacheOutput, takes it down the paths users take first (pools, a job that runs on the demo
# pool, a batch, a sweep, a CloudEvent, a refused input, health, metrics), and stops it; the JVM
# writes the cache as it exits. Start the manager with the same JVM, the same JAVA_OPTS and
# -XX:AOTCache=<cache>. Best with the aot-jar layout (./mvnw package -Paot): there the JVM loads
# every class itself and caches them linked, with their profiles.
#
#   src/main/docker/aot-train.sh <quarkus-app dir> <cache file>
#
# JAVA (default: java), JAVA_OPTS (default: the image's, C1 and the serial GC), TRAIN_PORT (default
# 18081), REDIS_URL (default: a redis-server on PATH, started on a free port for the run; give an
# empty one: the training leaves its demo pool and jobs there). The agents it started are stopped.
set -euo pipefail
app=$(cd "$1" && pwd)
cache=$(realpath -m "$2")
java=${JAVA:-java}
opts=${JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}
port=${TRAIN_PORT:-18081}
work=$(mktemp -d)
redis_pid=""
manager_pid=""
cleanup() {
  [ -n "$manager_pid" ] && kill "$manager_pid" 2>/dev/null || true
  stop_agents
  [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# the agents the training's manager started (they outlive a manager by design): found by the
# Redis they serve, which is on their command line
stop_agents() {
  local c pids=()
  for c in /proc/[0-9]*/cmdline; do
    if tr '\0' '\n' <"$c" 2>/dev/null | grep -qxF -- "-Dwarmpool.redis=${redis:-none}"; then
      c=${c%/cmdline}
      pids+=("${c#/proc/}")
    fi
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  kill "${pids[@]}" 2>/dev/null || true
  # they hand back politely; after 10 s they go regardless
  wait_for 10 gone "${pids[@]}" || kill -KILL "${pids[@]}" 2>/dev/null || true
}

gone() {
  local p
  for p in "$@"; do
    [ -d "/proc/$p" ] && return 1
  done
  return 0
}

# one HTTP/1.1 request over bash's /dev/tcp (no curl needed in a build stage); prints the body
http() {
  local method=$1 path=$2 body=${3:-} extra=${4:-}
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf '%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s' \
    "$method" "$path" "$token" "$extra" "${#body}" "$body" >&3
  sed '1,/^\r$/d' <&3
  exec 3<&-
}

ready() {
  { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
  printf 'GET /q/health/ready HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
  local status
  status=$(head -1 <&3)
  exec 3<&-
  [[ $status == *" 200 "* ]]
}

wait_for() { # seconds, command...
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
}

redis=${REDIS_URL:-}
if [ -z "$redis" ]; then
  redis_port=$((20000 + RANDOM % 20000))
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
  redis_pid=$!
  redis=redis://127.0.0.1:$redis_port
fi

agent=()
[ -f "$app/../warmpool-agent.jar" ] && agent=("-Dwarmpool.runtime.local.agent-jar=$(realpath "$app/../warmpool-agent.jar")")
rm -f "$cache"
# shellcheck disable=SC2086 # JAVA_OPTS is a list of options
"$java" $opts -XX:AOTCacheOutput="$cache" -Dquarkus.http.port="$port" -Dquarkus.redis.hosts="$redis" \
  -Dwarmpool.runtime.type=local -Dwarmpool.runtime.local.state-dir="$work/state" "${agent[@]}" \
  -jar "$app/quarkus-run.jar" >"$work/manager.log" 2>&1 &
manager_pid=$!
if ! wait_for 60 ready; then
  echo "aot-train: the manager did not get ready in 60 s; its log:" >&2
  cat "$work/manager.log" >&2
  exit 1
fi

# the admin token the manager made at its first start (no tokens file was given)
token=$(cat "$work/state/token")
first=""
for i in $(seq 12); do
  http GET /pools >/dev/null
  http GET /pools/demo >/dev/null
  job=$(http POST /jobs '{"type": "demo", "args": ["--lr", "0.1"], "config": {"lr": 0.1}}')
  id=$(sed -n 's/.*"id":"\([^"]*\)".*/\1/p' <<<"$job")
  first=${first:-$id}
  [ -n "$id" ] && http GET "/jobs/$id" >/dev/null
  http POST /jobs/batch '{"jobs": [{"type": "demo", "priority": 5}, {"type": "demo"}]}' >/dev/null
  http GET '/jobs?type=demo&limit=5' >/dev/null
  http POST /jobs '{"type": "no such type!"}' >/dev/null # a refused input: the problem+json path
  http POST / '{"type": "demo"}' "ce-specversion: 1.0\r\nce-id: aot-train-$i\r\nce-source: /aot-train\r\nce-type: dev.warmpool.job.submit\r\n" >/dev/null
  http GET /sweeps >/dev/null
  http GET /q/health/ready >/dev/null
  http GET /q/metrics >/dev/null
done
http POST /sweeps '{"type": "demo", "space": {"lr": {"grid": [0.1, 0.2]}}, "parallelism": 2}' >/dev/null
# the first job's end (a processor started, ran it and reported): up to 60 s, then stop regardless
ended() { http GET "/jobs/$first" | grep -q '"state":"\(SUCCEEDED\|FAILED\)"'; }
if [ -n "$first" ] && ! wait_for 60 ended; then
  echo "aot-train: the demo job did not end within 60 s; the cache holds the paths taken so far" >&2
fi
kill -TERM "$manager_pid"
wait "$manager_pid" || true # the JVM writes the cache at exit, in a child it forks
manager_pid=""
if [ ! -s "$cache" ]; then
  echo "aot-train: no cache was written; the manager's log:" >&2
  cat "$work/manager.log" >&2
  exit 1
fi
echo "aot-train: wrote $cache ($(($(stat -c %s "$cache") / 1024 / 1024)) MB)"
