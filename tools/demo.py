"""FlexSN demo: train a small spiking MLP on scikit-learn's handwritten digits.

    python tools/demo.py [--epochs 10] [--T 8] [--backend triton] [--device auto]
                         [--out out/demo] [--seed 0] [--batch-size 32] [--hidden 128]
                         [--save ckpt.pt] [--resume ckpt.pt]

(``hatch run demo`` runs it with ``TRITON_INTERPRET=1``.)

Data: ``sklearn.datasets.load_digits`` (1797 grey 8x8 images, 10 classes),
pixels scaled to [0, 1], a stratified 25 % held-out test split. Each image is
rate coded: at each of ``T`` time steps every pixel emits a spike with
probability equal to its intensity (fresh Bernoulli draws per batch).

Network: ``Linear(64, hidden) -> FlexSN(LIF) -> Linear(hidden, 10)``; the
class scores are the time-averaged output currents (the mean membrane of a
non-leaky, non-spiking readout). The LIF hidden layer is a core written
inline below: a plain PyTorch step function that FlexSN turns into fused
Triton scan kernels (one forward kernel and one reverse-time BPTT kernel per
training step). On CUDA they are compiled; on the CPU they run through
Triton's interpreter (``TRITON_INTERPRET=1``, set here before Triton is
imported when the demo runs on the CPU).

Outputs (in ``--out``): ``demo.png`` (loss and accuracy curves, a spike
raster of the hidden layer for a few test digits) and ``metrics.json``.
``--save`` writes a checkpoint after every epoch and ``--resume`` continues
from one: the resumed run gives the loss curve of an uninterrupted run with
the same seed (parameters, buffers, optimizer, schedule and random
generators are saved; the neurons' states are per-batch values and are not).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import torch

REPO = Path(__file__).resolve().parents[1]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Train a spiking MLP (FlexSN LIF hidden layer) on sklearn digits.")
    p.add_argument("--epochs", type=int, default=10, help="training epochs (default 10)")
    p.add_argument("--T", type=int, default=8, help="time steps per sample (default 8)")
    p.add_argument(
        "--backend",
        default="triton",
        choices=["triton", "inductor", "torch", "hop"],
        help="FlexSN backend (default triton: the generated kernels)",
    )
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"], help="default auto: cuda if present")
    p.add_argument("--out", default="out/demo", help="output folder for demo.png and metrics.json (default out/demo)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--hidden", type=int, default=128, help="hidden LIF neurons (default 128)")
    p.add_argument("--lr", type=float, default=5e-3, help="Adam learning rate (default 5e-3)")
    p.add_argument("--save", default=None, help="write a checkpoint here after every epoch (parameters, buffers, "
                   "optimizer, schedule, history, random generators; neuron states are not saved)")
    p.add_argument("--resume", default=None, help="continue from a checkpoint written by --save (same seed and options)")
    p.add_argument("--stop-after", type=int, default=None,
                   help="end after this epoch, as an interrupted run would (the schedule still spans --epochs)")
    args = p.parse_args(argv)
    for name in ("epochs", "T", "batch_size", "hidden"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    return args


def pick_device(choice: str) -> torch.device:
    """Resolve --device and prepare Triton before it is imported."""
    if choice == "cuda" and not torch.cuda.is_available():
        sys.exit("--device cuda: no CUDA device is available")
    device = torch.device("cuda" if choice == "cuda" or (choice == "auto" and torch.cuda.is_available()) else "cpu")
    if device.type == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    elif os.environ.get("TRITON_INTERPRET", "0").strip().lower() in ("1", "true", "yes", "on"):
        # hatch sets TRITON_INTERPRET=1 for CPU machines; on a GPU compile the kernels instead.
        print("note: TRITON_INTERPRET is set but a GPU is used; unsetting it so the kernels are compiled")
        del os.environ["TRITON_INTERPRET"]
    return device


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    device = pick_device(args.device)

    # Imports that pull in Triton come after TRITON_INTERPRET is settled.
    for src in sorted((REPO / "packages").glob("*/src")):
        if str(src) not in sys.path:
            sys.path.append(str(src))
    from plotting import pyplot  # tools/: this script's folder

    plt = pyplot(required=True)
    import numpy as np
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from torch import nn
    from tqdm import tqdm

    from flexsn_nn import FlexSN, reset_net, surrogate

    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    # ---- data: 8x8 digits in [0, 1], stratified 75/25 split -----------------------------------
    digits = load_digits()
    images = digits.data.astype(np.float32) / 16.0
    labels = digits.target.astype(np.int64)
    x_tr, x_te, y_tr, y_te = train_test_split(
        images, labels, test_size=0.25, stratify=labels, random_state=args.seed
    )
    x_train, y_train = torch.from_numpy(x_tr).to(device), torch.from_numpy(y_tr).to(device)
    x_test, y_test = torch.from_numpy(x_te).to(device), torch.from_numpy(y_te).to(device)
    gen = torch.Generator(device=device).manual_seed(args.seed)

    def encode(x: torch.Tensor) -> torch.Tensor:
        """Rate coding: [B, 64] intensities -> [T, B, 64] Bernoulli spikes."""
        p = x.unsqueeze(0).expand(args.T, *x.shape)
        return torch.bernoulli(p, generator=gen)

    # ---- the neuron: one LIF step written inline, run by FlexSN as fused kernels -------------
    spike = surrogate.ATan(alpha=2.0)

    def lif_step(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0  # charge (tau = 2, leak towards 0)
        s = spike(h - 1.0)  # fire at threshold 1, surrogate gradient in backward
        return s, h * (1.0 - s)  # hard reset to 0

    class SpikingMLP(nn.Module):
        def __init__(self, hidden: int, backend: str) -> None:
            super().__init__()
            self.fc1 = nn.Linear(64, hidden)
            self.lif = FlexSN(lif_step, num_inputs=1, num_states=1, num_outputs=1, backend=backend)
            self.fc2 = nn.Linear(hidden, 10)

        def forward(self, x_seq: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            spikes = self.lif(self.fc1(x_seq))  # [T, B, hidden]
            assert isinstance(spikes, torch.Tensor)
            return self.fc2(spikes).mean(0), spikes  # mean readout current [B, 10]

    model = SpikingMLP(args.hidden, args.backend).to(device)
    probe = encode(x_train[: args.batch_size])
    uses_kernels = model.lif.uses_kernels(model.fc1(probe))
    interp = os.environ.get("TRITON_INTERPRET", "0").strip().lower() in ("1", "true", "yes", "on")
    if args.backend in ("triton", "inductor"):
        how = "generated Triton kernels, " + ("interpreted on CPU (TRITON_INTERPRET=1)" if interp else "compiled for CUDA")
        if not uses_kernels:
            how = "EAGER FALLBACK (the generated kernels cannot run here)"
    else:
        how = f"{args.backend} backend (no generated kernels)"
    print(f"device: {device}  backend: {args.backend}  execution: {how}")
    print(f"data: {len(x_train)} train / {len(x_test)} test digits, T={args.T}, hidden={args.hidden}")

    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    loss_fn = nn.CrossEntropyLoss()

    def evaluate(x: torch.Tensor, y: torch.Tensor) -> float:
        model.eval()
        correct = 0
        with torch.no_grad():
            for i in range(0, len(x), 256):
                logits, _ = model(encode(x[i : i + 256]))
                correct += int((logits.argmax(1) == y[i : i + 256]).sum())
                reset_net(model)
        model.train()
        return correct / len(x)

    history: dict[str, list[float]] = {"loss": [], "train_acc": [], "test_acc": []}
    first_epoch = 0
    if args.resume:
        # parameters and buffers (a FlexSN layer's states are per-run values, never saved), then
        # everything that decides the next epoch: optimizer, schedule, curves and random generators
        ckpt = torch.load(args.resume, map_location=device, weights_only=False)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        sched.load_state_dict(ckpt["scheduler"])
        history = ckpt["history"]
        first_epoch = int(ckpt["epoch"])
        gen.set_state(ckpt["generator"].cpu() if device.type == "cpu" else ckpt["generator"])
        torch.set_rng_state(ckpt["torch_rng"])
        print(f"resumed from {args.resume} after epoch {first_epoch}")
    n_batches = (len(x_train) + args.batch_size - 1) // args.batch_size
    train_time = 0.0
    fallback_warnings: list[str] = []
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught, tqdm(
        total=args.epochs * n_batches, desc="training", unit="batch", dynamic_ncols=True, mininterval=0.5
    ) as bar:
        warnings.simplefilter("always", RuntimeWarning)
        bar.update(first_epoch * n_batches)
        last = args.epochs if args.stop_after is None else min(args.epochs, args.stop_after)
        for epoch in range(first_epoch, last):
            perm = torch.randperm(len(x_train), generator=gen, device=device)
            total_loss, correct = 0.0, 0
            t0 = time.perf_counter()
            for b in range(n_batches):
                idx = perm[b * args.batch_size : (b + 1) * args.batch_size]
                logits, _ = model(encode(x_train[idx]))
                loss = loss_fn(logits, y_train[idx])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                reset_net(model)  # states of one batch must not leak into the next
                total_loss += float(loss) * len(idx)
                correct += int((logits.argmax(1) == y_train[idx]).sum())
                bar.update(1)
                bar.set_postfix(epoch=epoch + 1, loss=f"{float(loss):.3f}")
            if device.type == "cuda":
                torch.cuda.synchronize()
            train_time += time.perf_counter() - t0
            sched.step()
            history["loss"].append(total_loss / len(x_train))
            history["train_acc"].append(correct / len(x_train))
            history["test_acc"].append(evaluate(x_test, y_test))
            bar.set_postfix(epoch=epoch + 1, loss=f"{history['loss'][-1]:.3f}", test_acc=f"{history['test_acc'][-1]:.3f}")
            if args.save:
                torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                            "history": history, "epoch": epoch + 1, "generator": gen.get_state(),
                            "torch_rng": torch.get_rng_state()}, args.save)
        fallback_warnings = [str(w.message) for w in caught if "FlexSN" in str(w.message)]
    wall = time.perf_counter() - start
    for message in dict.fromkeys(fallback_warnings):
        print(f"warning: {message}")

    test_acc = history["test_acc"][-1]
    samples_per_s = (len(history["loss"]) - first_epoch) * len(x_train) / max(train_time, 1e-9)
    print(f"test accuracy: {test_acc * 100:.2f} %  (train {history['train_acc'][-1] * 100:.2f} %)")
    print(f"training: {samples_per_s:.1f} samples/s ({train_time:.1f} s training, {wall:.1f} s total)")
    print(f"ran on: device={device}, backend={args.backend}, kernels used: {'yes' if uses_kernels else 'no'}"
          + (" (interpreter)" if uses_kernels and interp else ""))

    # ---- figure: curves + hidden-layer raster for a few test digits ---------------------------
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    n_show = 4
    with torch.no_grad():
        model.eval()
        _, hidden_spikes = model(encode(x_test[:n_show]))
        reset_net(model)
    raster = hidden_spikes.float().cpu().numpy()  # [T, n_show, hidden]
    fig = plt.figure(figsize=(13, 6.5))
    grid = fig.add_gridspec(2, n_show)
    ax = fig.add_subplot(grid[0, : n_show // 2])
    epochs_axis = np.arange(1, len(history["loss"]) + 1)
    ax.plot(epochs_axis, history["loss"], marker="o")
    ax.set(title="training loss (cross-entropy)", xlabel="epoch", ylabel="loss")
    ax = fig.add_subplot(grid[0, n_show // 2 :])
    ax.plot(epochs_axis, np.array(history["train_acc"]) * 100, marker="o", label="train")
    ax.plot(epochs_axis, np.array(history["test_acc"]) * 100, marker="s", label="test")
    ax.set(title="accuracy", xlabel="epoch", ylabel="%")
    ax.legend()
    for i in range(n_show):
        ax = fig.add_subplot(grid[1, i])
        ax.imshow(raster[:, i, :].T, aspect="auto", cmap="Greys", vmin=0, vmax=1, origin="lower",
                  interpolation="nearest", extent=(-0.5, args.T - 0.5, -0.5, args.hidden - 0.5))
        ax.set(xlabel="time step", title=f"test digit {int(y_test[i])}: {int(raster[:, i].sum())} spikes")
        if i == 0:
            ax.set_ylabel("hidden neuron")
    fig.suptitle(f"FlexSN spiking MLP on sklearn digits ({args.backend} on {device}), test acc {test_acc * 100:.1f} %")
    fig.tight_layout()
    png = out / "demo.png"
    fig.savefig(png, dpi=110)
    plt.close(fig)

    metrics: dict[str, Any] = {
        "test_accuracy": test_acc,
        "train_accuracy": history["train_acc"][-1],
        "history": history,
        "train_samples_per_s": samples_per_s,
        "train_time_s": train_time,
        "wall_time_s": wall,
        "device": str(device),
        "backend": args.backend,
        "kernels_used": uses_kernels,
        "triton_interpret": interp,
        "fallback_warnings": sorted(set(fallback_warnings)),
        "args": vars(args),
        "torch": torch.__version__,
    }
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1))
    print(f"wrote {png} and {out / 'metrics.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
