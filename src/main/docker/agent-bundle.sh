#!/usr/bin/env bash
# Assembles the agent bundle that a docker processor mounts read-only at /opt/warmpool (and that
# Dockerfile.agent copies to /warmpool): a jlink'd Java runtime of the build's JDK, the agent jar
# and the launcher bin/warmpool-agent, so a pool's image needs no Java of its own. Built here
# rather than in a `FROM eclipse-temurin` stage: no registry is reachable from this machine or CI,
# and jlink only needs the JDK that builds the project. The runtime is made once per JDK (jlink
# takes seconds); later calls only copy the jar.
#   src/main/docker/agent-bundle.sh [JAVA_HOME] [AGENT_JAR] [OUT]
set -euo pipefail
java_home="${1:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}}"
jar="${2:-target/warmpool-agent.jar}"
out="${3:-target/warmpool-agent-bundle}"
# the modules `jdeps --print-module-deps` lists for the agent jar, and the EC provider its TLS to the
# manager's own Redis negotiates keys with (without it only the slower finite-field groups remain)
modules=java.base,java.management,java.net.http,java.sql,jdk.crypto.ec

[ -f "$jar" ] || { echo "agent-bundle.sh: no $jar (./mvnw package builds it)" >&2; exit 1; }
# Without a bundle only the docker runtime's init-container pools cannot start (and say so), so a
# JDK that cannot link one warns here rather than failing the whole package.
skip() {
  echo "agent-bundle.sh: WARNING: no agent bundle in $out: $1" >&2
  rm -rf "$out"
  exit 0
}
jlink="$java_home/bin/jlink"
[ -x "$jlink" ] || skip "no jlink in $java_home (a JDK, not a JRE, is needed)"

stamp="$("$java_home/bin/java" -version 2>&1 | tr '\n' ' ')|$modules"
if [ ! -f "$out/runtime/.stamp" ] || [ "$(cat "$out/runtime/.stamp")" != "$stamp" ]; then
  rm -rf "$out/runtime"
  mkdir -p "$out"
  "$jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress=2 \
    --output "$out/runtime" || skip "jlink of $java_home failed (does it have its jmods?)"
  printf '%s' "$stamp" > "$out/runtime/.stamp"
fi
mkdir -p "$out/lib" "$out/bin"
cp "$jar" "$out/lib/warmpool-agent.jar"
# the rooms' init (src/main/c/build.sh made it beside the jar, when a C compiler was there)
if [ -x "$(dirname "$jar")/wp-room" ]; then
  cp "$(dirname "$jar")/wp-room" "$out/bin/wp-room"
else
  rm -f "$out/bin/wp-room"
  echo "agent-bundle.sh: WARNING: no wp-room beside $jar: containers run jobs without their room's init" >&2
fi
cat > "$out/bin/warmpool-agent" <<'LAUNCHER'
#!/bin/sh
here=$(dirname "$0")/..
exec "$here/runtime/bin/java" -Xms8m -Xmx32m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=64m -Dslf4j.internal.verbosity=ERROR \
  -jar "$here/lib/warmpool-agent.jar" "$@"
LAUNCHER
# readable and runnable by any user a pool's securityContext picks, writable by none of them
chmod -R a+rX,go-w "$out"
chmod 0755 "$out/bin/warmpool-agent"
