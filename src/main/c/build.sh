#!/usr/bin/env bash
# Builds wp-room, the init of a processor's room (src/main/c/wp-room.c), as a static binary that
# runs in any image: musl-gcc when present (Debian: musl-tools; ~90 KB), else the C compiler's
# static glibc. Without a C compiler the build goes on without it (a warning): agents then give
# each job a bwrap of its own (slower), and containers run jobs as their own uid without the room.
#   src/main/c/build.sh OUT
set -euo pipefail
out="$1"
src="$(dirname "$0")/wp-room.c"
flags=(-static -Os -Wall -Wextra -Werror -o "$out.tmp" "$src")
for cc in musl-gcc gcc cc; do
  if command -v "$cc" >/dev/null 2>&1; then
    if [ -x "$out" ] && [ "$out" -nt "$src" ]; then exit 0; fi
    mkdir -p "$(dirname "$out")"
    if "$cc" "${flags[@]}" 2>"$out.log"; then
      mv "$out.tmp" "$out" && rm -f "$out.log"
      chmod 0755 "$out"
      exit 0
    fi
    echo "build.sh: WARNING: $cc could not build wp-room:" >&2
    cat "$out.log" >&2
  fi
done
echo "build.sh: WARNING: no C compiler built wp-room (apt-get install musl-tools): jobs get a bwrap each" >&2
rm -f "$out" "$out.tmp"
