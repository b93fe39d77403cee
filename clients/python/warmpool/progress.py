"""A live bar of trials done and the best value: tqdm when it is installed, else a line on stderr."""
from __future__ import annotations

import sys
import warnings
from typing import Any, Mapping, Optional

__all__ = ["Bar"]


class Bar:
    def __init__(self, total: int) -> None:
        self.done = 0
        self.total = total
        self.tqdm: Any = None
        try:
            with warnings.catch_warnings():  # in a kernel without ipywidgets, tqdm.auto falls back to text, and says so
                warnings.simplefilter("ignore")
                from tqdm.auto import tqdm
            self.tqdm = tqdm(total=total, unit="trial")
        except ImportError:
            pass

    def update(self, done: int, best: Optional[Mapping[str, Any]]) -> None:
        if self.tqdm is not None:
            self.tqdm.update(done - self.done)
            if best:
                self.tqdm.set_postfix(best=best.get("value"))
        else:
            sys.stderr.write("\r%d/%d trials%s" % (done, self.total, "" if not best else ", best %s" % best.get("value")))
        self.done = done

    def close(self) -> None:
        if self.tqdm is not None:
            self.tqdm.close()
        else:
            sys.stderr.write("\n")
