"""A real, small training for the examples: scikit-learn's SVC on its bundled digits images
(no download), scored by 3-fold cross-validation. Each fold is a step: it reports the mean
accuracy so far, so a sweep's median rule or an Optuna pruner can stop a bad trial early.

Run as a pool's command with "worker": "persistent": scikit-learn is imported and the data
loaded once per worker, not once per trial.
"""
import time

import warmpool_worker
from sklearn.datasets import load_digits
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

X, y = load_digits(return_X_y=True)
X = X / 16.0


def train(config):
    c, gamma = float(config.get("C", 1.0)), float(config.get("gamma", 0.01))
    scores = []
    t0 = time.monotonic()
    for step, (fit, held) in enumerate(StratifiedKFold(n_splits=3, shuffle=True, random_state=0).split(X, y)):
        model = SVC(C=c, gamma=gamma).fit(X[fit], y[fit])
        scores.append(model.score(X[held], y[held]))
        warmpool_worker.report(step, accuracy=sum(scores) / len(scores))
        print("fold %d: accuracy %.4f" % (step, scores[-1]), flush=True)
    return {"accuracy": sum(scores) / len(scores), "seconds": round(time.monotonic() - t0, 3)}


if __name__ == "__main__":
    warmpool_worker.serve(train)
