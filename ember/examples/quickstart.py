"""ember quickstart: a regression and a classification, written as a PyTorch user would.

Run ``python -m ember.examples.quickstart [--out DIR]``. It prints its progress and:

1. Regression. 1000 samples with 10 uniform features and ``y = X @ w + noise``; an 80/20 split;
   features and target standardised with training statistics only; an MLP 10->64->32->1 (ReLU)
   trained full-batch with Adam (lr 1e-3) and MSELoss for 100 epochs inside 5-fold cross-validation
   (a fresh model per fold), then a model trained on the whole 80% is scored on the held-out 20%
   (test MSE and R^2). The fold-averaged train/validation loss curves go to ``DIR/regression_loss.png``.
2. Classification. The 8x8 hand-written digits (1797 images, shipped with ember) classified by an MLP
   trained with mini-batches; prints the test accuracy and the confusion matrix.
3. Convolutional network. The same digits as 1x8x8 images through Conv2d/BatchNorm2d/MaxPool2d
   layers, trained with AdamW and a one-cycle learning-rate schedule; prints its test accuracy.

With ``import torch`` and ``import torch.nn as nn`` in place of the two ember imports the same file runs
on PyTorch (the digits still load from ember's package data).
"""
from __future__ import annotations

import argparse
import os
import time
from importlib import resources

import numpy as np

import ember as torch
import ember.nn as nn

SEED = 0
EPOCHS = 100
FOLDS = 5


def log(msg: str) -> None:
    print(msg, flush=True)


# ----------------------------------------------------------------------------- helpers
def standardise(train, *others):
    """Scale ``train`` to zero mean, unit variance per column; apply the same map to ``others``."""
    mean = train.mean(0, keepdim=True)
    std = train.std(0, keepdim=True)
    std = torch.where(std > 0, std, torch.ones_like(std))
    return [(t - mean) / std for t in (train, *others)], (mean, std)


def regression_mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))


def fit_full_batch(model, x, y, epochs, x_val=None, y_val=None):
    """Full-batch Adam on MSE; returns per-epoch train (and validation) losses."""
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    train_curve, val_curve = [], []
    for _ in range(epochs):
        model.train()
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        train_curve.append(loss.item())
        if x_val is not None:
            model.eval()
            with torch.no_grad():
                val_curve.append(loss_fn(model(x_val), y_val).item())
    return train_curve, val_curve


# ----------------------------------------------------------------------------- 1. regression
def regression(out_dir: str) -> dict:
    log("== 1. Regression: MLP 10->64->32->1, Adam lr=1e-3, full batch, 5-fold CV ==")
    torch.manual_seed(SEED)
    n, d = 1000, 10
    X = torch.rand(n, d)
    true_w = torch.randn(d, 1)
    y = X @ true_w + 0.1 * torch.randn(n, 1)

    perm = torch.randperm(n)
    n_train = int(0.8 * n)
    X_train, y_train = X[perm[:n_train]], y[perm[:n_train]]
    X_test, y_test = X[perm[n_train:]], y[perm[n_train:]]
    log(f"data: {n} samples x {d} features; train {n_train}, test {n - n_train}")

    # 5-fold cross-validation on the training part; each fold standardises with its own training rows
    folds = torch.randperm(n_train).chunk(FOLDS)
    train_curves, val_curves = [], []
    t0 = time.perf_counter()
    for k in range(FOLDS):
        val_idx = folds[k]
        fit_idx = torch.cat([folds[j] for j in range(FOLDS) if j != k])
        (xf, xv), _ = standardise(X_train[fit_idx], X_train[val_idx])
        (yf, yv), _ = standardise(y_train[fit_idx], y_train[val_idx])
        torch.manual_seed(SEED + 1 + k)
        model = regression_mlp()
        tr, va = fit_full_batch(model, xf, yf, EPOCHS, xv, yv)
        train_curves.append(tr)
        val_curves.append(va)
        log(f"fold {k + 1}/{FOLDS}: train loss {tr[0]:.4f} -> {tr[-1]:.4f}, "
            f"validation loss {va[0]:.4f} -> {va[-1]:.4f}")
    mean_train = np.mean(train_curves, axis=0)
    mean_val = np.mean(val_curves, axis=0)
    log(f"cross-validation ({time.perf_counter() - t0:.1f}s): mean final train loss "
        f"{mean_train[-1]:.4f}, mean final validation loss {mean_val[-1]:.4f} (standardised units)")

    # final model on the whole training part, scored on the held-out test part
    (x_tr, x_te), _ = standardise(X_train, X_test)
    (y_tr,), (y_mean, y_std) = standardise(y_train)
    torch.manual_seed(SEED + 100)
    model = regression_mlp()
    fit_full_batch(model, x_tr, y_tr, EPOCHS)
    model.eval()
    with torch.no_grad():
        pred = model(x_te) * y_std + y_mean
        mse = ((pred - y_test) ** 2).mean().item()
        r2 = 1 - ((pred - y_test) ** 2).sum().item() / ((y_test - y_test.mean()) ** 2).sum().item()
    log(f"test MSE: {mse:.5f}")
    log(f"test R^2: {r2:.4f}")

    path = plot_curves(mean_train, mean_val, out_dir)
    log(f"loss curves saved to {path}")
    return {"mse": mse, "r2": r2, "plot": path}


def plot_curves(mean_train, mean_val, out_dir: str) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.abspath(os.path.join(out_dir, "regression_loss.png"))
    epochs = np.arange(1, len(mean_train) + 1)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(epochs, mean_train, label="train")
    ax.plot(epochs, mean_val, label="validation")
    ax.set_xlabel("epoch")
    ax.set_ylabel("MSE (standardised target)")
    ax.set_yscale("log")
    ax.set_title(f"{FOLDS}-fold cross-validation, mean over folds")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# ----------------------------------------------------------------------------- 2. classification
def load_digits():
    """The 8x8 digits as (images float32 (N, 64) in [0, 16], labels int64 (N,))."""
    with resources.files("ember.examples").joinpath("data/digits.npz").open("rb") as f:
        data = np.load(f)
        images, target = data["images"], data["target"]
    X = torch.from_numpy(images.reshape(len(images), -1).astype(np.float32))
    y = torch.from_numpy(target.astype(np.int64))
    return X, y


def classification() -> dict:
    log("== 2. Classification: 8x8 digits, MLP 64->128->10, Adam lr=1e-3, mini-batches of 32 ==")
    torch.manual_seed(SEED)
    X, y = load_digits()
    n = len(X)
    perm = torch.randperm(n)
    n_train = int(0.8 * n)
    X_train, y_train = X[perm[:n_train]], y[perm[:n_train]]
    X_test, y_test = X[perm[n_train:]], y[perm[n_train:]]
    (X_train, X_test), _ = standardise(X_train, X_test)
    log(f"data: {n} images of 8x8 pixels, 10 classes; train {n_train}, test {n - n_train}")

    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    fit(model, optimizer, loss_fn, (X_train, y_train), (X_test, y_test), batch_size=32, epochs=30,
        log_every=5)

    model.eval()
    with torch.no_grad():
        pred = model(X_test).argmax(dim=1)
    acc = (pred == y_test).float().mean().item()
    log(f"test accuracy: {acc:.4f}")
    cm = confusion_matrix(y_test, pred, 10)
    log("confusion matrix (rows: true digit, columns: predicted):")
    log("      " + " ".join(f"{j:4d}" for j in range(10)))
    for i, row in enumerate(cm.tolist()):
        log(f"  {i:2d}  " + " ".join(f"{v:4d}" for v in row))
    return {"accuracy": acc}


def fit(model, optimizer, loss_fn, train, test, *, batch_size: int, epochs: int, log_every: int,
        scheduler=None) -> None:
    """Mini-batch training on ``train = (X, y)``, reshuffled each epoch; every ``log_every`` epochs
    logs the mean train loss and the accuracy on ``test = (X, y)``. ``scheduler`` steps per batch."""
    (X_train, y_train), (X_test, y_test) = train, test
    n_train = len(X_train)
    t0 = time.perf_counter()
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(n_train)
        total = 0.0
        for i in range(0, n_train, batch_size):
            idx = order[i:i + batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(X_train[idx]), y_train[idx])
            loss.backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            total += loss.item() * len(idx)
        if (epoch + 1) % log_every == 0:
            log(f"epoch {epoch + 1:2d}/{epochs}: train loss {total / n_train:.4f}, "
                f"test accuracy {accuracy(model, X_test, y_test):.4f}")
    log(f"training took {time.perf_counter() - t0:.1f}s")


def accuracy(model, X, y) -> float:
    model.eval()
    with torch.no_grad():
        return (model(X).argmax(dim=1) == y).float().mean().item()


def confusion_matrix(target, pred, num_classes: int):
    """counts[i, j] = how many samples of class i were predicted as class j."""
    cm = torch.zeros(num_classes, num_classes, dtype=torch.int64)
    for t, p in zip(target.tolist(), pred.tolist()):
        cm[t, p] += 1
    return cm


# ----------------------------------------------------------------------------- 3. conv net
def conv_net() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),  # 4x4
        nn.Dropout(0.25), nn.Flatten(), nn.Linear(64 * 4 * 4, 10))


def convolutional() -> dict:
    log("== 3. Conv net on the digits: 2x (Conv2d + BatchNorm2d + ReLU), MaxPool2d, Linear; "
        "AdamW + OneCycleLR ==")
    torch.manual_seed(SEED)
    X, y = load_digits()
    n = len(X)
    perm = torch.randperm(n)  # the same split as section 2
    n_train = int(0.8 * n)
    X_train, y_train = X[perm[:n_train]], y[perm[:n_train]]
    X_test, y_test = X[perm[n_train:]], y[perm[n_train:]]
    # pixels in [0, 16] scaled to [0, 1]; shape: (N, 1, 8, 8)
    X_train = (X_train / 16.0).reshape(-1, 1, 8, 8)
    X_test = (X_test / 16.0).reshape(-1, 1, 8, 8)

    model = conv_net()
    batch_size, epochs = 64, 12
    steps_per_epoch = (n_train + batch_size - 1) // batch_size
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, epochs=epochs,
                                                    steps_per_epoch=steps_per_epoch)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    fit(model, optimizer, loss_fn, (X_train, y_train), (X_test, y_test), batch_size=batch_size,
        epochs=epochs, log_every=3, scheduler=scheduler)
    acc = accuracy(model, X_test, y_test)
    log(f"conv net test accuracy: {acc:.4f}")
    return {"accuracy": acc}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description="ember quickstart: regression, digits MLP and conv net")
    parser.add_argument("--out", default=".", help="directory for the loss-curve PNG (default: .)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    results = {"regression": regression(args.out), "classification": classification(),
               "convolutional": convolutional()}
    log(f"done in {time.perf_counter() - t0:.1f}s")
    return results


if __name__ == "__main__":
    main()
