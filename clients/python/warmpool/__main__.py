"""``python -m warmpool``: pools, submit, job, logs, sweeps, cancel from a shell (WARMPOOL_URL, WARMPOOL_TOKEN)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Optional, Sequence

from .client import Client
from .errors import JobFailed, WarmpoolError


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs one command; its exit status: 0, 1 for a refusal or a job that did not succeed, 2 for bad input."""
    p = argparse.ArgumentParser(prog="python -m warmpool", description="warmpool from a shell")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("pools", help="the pools and their processors")
    s = sub.add_parser("submit", help="submit a job")
    s.add_argument("type")
    s.add_argument("--config", default=None, help="the job's config, as JSON")
    s.add_argument("--wait", type=int, default=None, metavar="S", help="wait up to S seconds for its end")
    s.add_argument("--follow", "-f", action="store_true", help="print its output as it runs, then the ended job")
    j = sub.add_parser("job", help="one job")
    j.add_argument("id")
    lg = sub.add_parser("logs", help="what a job printed")
    lg.add_argument("id")
    lg.add_argument("--follow", "-f", action="store_true", help="print lines as they come, until the job ends")
    w = sub.add_parser("sweeps", help="the newest sweeps")
    w.add_argument("--type", default=None)
    c = sub.add_parser("cancel", help="cancel a job or a sweep (its open trials with it)")
    c.add_argument("id")
    a = p.parse_args(argv)
    wp = Client()
    try:
        if a.command == "pools":
            for pool in wp.pools():
                print(repr(pool))
        elif a.command == "submit":
            config = json.loads(a.config) if a.config else None
            if a.follow:
                job = wp.submit(a.type, config=config)
                for ev in job.events():
                    if ev.name == "log":
                        print(ev.data, flush=True)
            else:
                job = wp.run(a.type, config=config, timeout=a.wait) if a.wait is not None else wp.submit(a.type, config=config)
            print(json.dumps(job.data, indent=2))
            if job.ended and job.state != "SUCCEEDED":
                return 1
        elif a.command == "job":
            print(json.dumps(wp.job(a.id).data, indent=2))
        elif a.command == "logs":
            for line in wp.job(a.id).logs(follow=a.follow):
                print(line, flush=True)
        elif a.command == "sweeps":
            for sweep in wp.sweeps(type=a.type):
                print(repr(sweep))
        elif a.command == "cancel":
            print(json.dumps(wp.cancel(a.id).data, indent=2))
    except json.JSONDecodeError as e:
        print("--config is not JSON: %s" % e, file=sys.stderr)
        return 2
    except (WarmpoolError, JobFailed) as e:
        print(e, file=sys.stderr)
        return 1
    finally:
        wp.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
