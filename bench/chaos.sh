#!/usr/bin/env bash
# The full chaos run of issue 3: 2,000 jobs (or $1), agents killed every 2 s, the manager
# killed and restarted twice, Redis restarted once. The report is printed and written to
# target/chaos-report.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=ChaosIT \
  -Dchaos.jobs="${1:-2000}" -Dchaos.manager-restarts=2
cat target/chaos-report.txt
