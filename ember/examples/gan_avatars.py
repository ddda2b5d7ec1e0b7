"""GAN avatars: a DCGAN that learns to draw cartoon avatars (the classic anime-avatar book project).

Run ``python -m ember.examples.gan_avatars [--out DIR] [--tiny]``. Steps:

1. Data. Cartoon avatars are drawn procedurally with PIL (no download): a coloured background, a face
   (skin tone, shape), hair in one of four styles and ten colours, eyes (size, spacing, iris
   colour), a mouth and sometimes blush, drawn at 4x and downsampled. Colours come from small
   palettes (8 backgrounds, 10 hair colours, 5 skin tones, 6 iris colours). As in an anime-face
   data set, where each character appears in many pictures, the images show a cast of 8 characters
   (fixed colours, hair style, eye and face shape), each drawing jittered in colour, position, size,
   fringe and mouth; so a sample close to the data has a training image close to it. They are cached as
   ``avatars_<n>_<size>px.npz`` under ``$EMBER_CACHE`` (default ``~/.cache/ember/examples``).
2. Model. The DCGAN of the book: the generator maps noise ``(N, nz, 1, 1)`` through
   ConvTranspose2d/BatchNorm2d/ReLU layers to a ``6x6`` map and doubles it up to ``48x48`` (``24x24``
   with ``--tiny``), ending in Tanh; the discriminator mirrors it with Conv2d/BatchNorm2d/LeakyReLU
   down to one Sigmoid probability. Weights start from N(0, 0.02), BatchNorm scales from N(1, 0.02).
3. Training. BCELoss (real label 0.9), Adam(betas=(0.5, 0.999)) with lr 8e-4 for the generator and
   2e-4 for the discriminator, batches of 4, the discriminator every batch and the generator every
   other batch; BatchNorm in train mode while training, eval mode (running statistics) to sample.
   A grid of 64 samples from fixed noise is written after every epoch (``DIR/gan_epoch_<k>.png``), the final one to ``DIR/gan_avatars.png`` next to a grid of
   training images (``DIR/gan_training_images.png``). Checkpoints go to ``DIR/gan_checkpoint.pt``
   and are reloaded into fresh networks, which must reproduce the samples exactly.
4. Measures. For 64 samples: the mean distance to the nearest training image (root-mean-square over
   pixels, images in [-1, 1]) before and after training, and the diversity of the samples (the
   per-pixel standard deviation across samples, averaged over pixels).
"""
from __future__ import annotations

import argparse
import copy
import os
import time

import numpy as np

import ember as torch
import ember.nn as nn
from ember.examples._book_common import cache_dir, progress, save_grid, to_numpy
from ember.utils.data import DataLoader, TensorDataset

CAST = 8                # characters in the data set, each drawn many times with small variations
DIVERSITY_FLOOR = 0.1   # per-pixel std across samples (pixels in [-1, 1]); a collapsed GAN is ~0

# What decides whether the DCGAN gets anywhere in a few minutes of CPU is the number of optimiser
# steps, not the number of images seen: at batch 32, 2048 avatars make 64 steps an epoch and the
# samples stay grey-brown blobs for hundreds of steps (measured: 6 epochs left the nearest-image
# distance at 1.2x below the untrained generator's; ember and torch alike). Small batches (4) give
# 512 steps an epoch; Adam's lr is 8e-4 for the generator and 2e-4 for the discriminator (which
# otherwise wins at once when the generator only steps every other batch), real labels 0.9
# (one-sided smoothing).
FULL = dict(size=48, n_images=2048, ngf=32, ndf=32, nz=64, epochs=6, batch_size=4, lr_g=8e-4, lr_d=2e-4,
            real_label=0.9)
TINY = dict(size=24, n_images=2048, ngf=32, ndf=32, nz=32, epochs=6, batch_size=4, lr_g=8e-4, lr_d=2e-4,
            real_label=0.9)

_BACKGROUND = [(250, 90, 90), (80, 200, 120), (70, 130, 240), (250, 210, 60), (190, 100, 230), (60, 210, 220),
               (250, 150, 60), (240, 240, 240)]
_HAIR = [(20, 20, 25), (90, 55, 30), (235, 200, 90), (230, 110, 160), (70, 110, 230), (200, 40, 40),
         (140, 80, 200), (60, 170, 120), (235, 235, 240), (250, 140, 40)]
_SKIN = [(255, 224, 196), (241, 194, 160), (224, 172, 130), (190, 135, 95), (255, 236, 220)]
_IRIS = [(40, 90, 200), (30, 140, 80), (150, 60, 30), (170, 40, 160), (200, 30, 50), (20, 20, 20)]


def _jitter(rng, colour, amount=12):
    return tuple(int(np.clip(c + rng.integers(-amount, amount + 1), 0, 255)) for c in colour)


def character(rng: np.random.Generator) -> dict:
    """The fixed traits of one cast member: colours (from the palettes), hair style, eye shape."""
    pick = lambda palette: palette[rng.integers(len(palette))]   # noqa: E731
    return dict(background=pick(_BACKGROUND), hair=pick(_HAIR), skin=pick(_SKIN), iris=pick(_IRIS),
                style=int(rng.integers(4)), eye_y=52 + rng.uniform(-2, 6), eye_x=rng.uniform(9, 14),
                eye_r=rng.uniform(4.5, 7.5), face_w=rng.uniform(27, 33), face_h=rng.uniform(31, 37),
                blush=bool(rng.random() < 0.5))


def draw_avatar(rng: np.random.Generator, size: int, traits: dict | None = None) -> np.ndarray:
    """One cartoon face as a ``(size, size, 3)`` uint8 array, drawn at 4x and downsampled.

    ``traits`` (from ``character``) fixes who is drawn; each drawing still varies a little in
    colour, position, face and eye size, fringe and mouth."""
    from PIL import Image, ImageDraw
    t = character(rng) if traits is None else traits
    s = 4 * size
    u = s / 100.0   # drawing unit: the canvas is 100 units wide
    img = Image.new("RGB", (s, s), _jitter(rng, t["background"]))
    d = ImageDraw.Draw(img)
    hair, skin, iris = (_jitter(rng, t[k]) for k in ("hair", "skin", "iris"))
    cx = 50 + rng.uniform(-2, 2)
    fw, fh = t["face_w"] + rng.uniform(-1, 1), t["face_h"] + rng.uniform(-1, 1)   # face half-sizes
    top = 52 - fh
    style = t["style"]
    if style == 1:                                              # long hair behind the face
        d.rectangle([(cx - fw - 8) * u, (top + 5) * u, (cx + fw + 8) * u, 100 * u], fill=hair)
    if style == 3:                                              # twin tails
        for side in (-1, 1):
            x = cx + side * (fw + 9)
            d.ellipse([(x - 9) * u, (40) * u, (x + 9) * u, (82) * u], fill=hair)
    d.ellipse([(cx - fw) * u, top * u, (cx + fw) * u, (52 + fh) * u], fill=skin)       # face
    # hair on top: a cap over the forehead, with a fringe cut for styles 0 and 2
    d.chord([(cx - fw - 4) * u, (top - 6) * u, (cx + fw + 4) * u, (top + fh + 6) * u], 180, 360, fill=hair)
    if style in (0, 2):
        n = 3 + (style == 2) * 2
        xs = np.linspace(cx - fw, cx + fw, n + 1)
        for a, b in zip(xs[:-1], xs[1:]):
            d.polygon([(a * u, (top + fh / 2 + 2) * u), (b * u, (top + fh / 2 + 2) * u),
                       ((a + b) / 2 * u, (top + fh / 2 + rng.uniform(6, 12)) * u)], fill=hair)
    ey, ex = t["eye_y"] + rng.uniform(-1, 1), t["eye_x"] + rng.uniform(-0.5, 0.5)   # eyes
    er = t["eye_r"] * rng.uniform(0.9, 1.1)
    for side in (-1, 1):
        x = cx + side * ex
        d.ellipse([(x - er) * u, (ey - er * 1.2) * u, (x + er) * u, (ey + er * 1.2) * u], fill=(255, 255, 255))
        d.ellipse([(x - er * 0.7) * u, (ey - er * 0.9) * u, (x + er * 0.7) * u, (ey + er * 1.1) * u], fill=iris)
        d.ellipse([(x - er * 0.3) * u, (ey - er * 0.3) * u, (x + er * 0.3) * u, (ey + er * 0.5) * u], fill=(0, 0, 0))
        d.ellipse([(x - er * 0.5) * u, (ey - er * 0.8) * u, (x - er * 0.1) * u, (ey - er * 0.4) * u],
                  fill=(255, 255, 255))
        if t["blush"]:
            d.ellipse([(x - 4) * u, (ey + er + 3) * u, (x + 4) * u, (ey + er + 6) * u], fill=(240, 130, 140))
    my, mw = ey + rng.uniform(14, 20), rng.uniform(3, 7)        # mouth
    d.arc([(cx - mw) * u, (my - 3) * u, (cx + mw) * u, (my + 3) * u], 10, 170, fill=(150, 40, 50),
          width=max(1, int(1.5 * u)))
    return np.asarray(img.resize((size, size), Image.LANCZOS), dtype=np.uint8)


def avatar_dataset(n: int, size: int, seed: int = 0, cast: int = CAST) -> np.ndarray:
    """``(n, 3, size, size)`` float32 avatars in [-1, 1]: ``n`` drawings of a cast of ``cast``
    characters, drawn once and cached as uint8."""
    path = cache_dir() / f"avatars_{n}_{size}px_cast{cast}_seed{seed}.npz"
    if path.exists():
        images = np.load(path)["images"]
    else:
        rng = np.random.default_rng(seed)
        people = [character(rng) for _ in range(cast)]
        images = np.stack([draw_avatar(rng, size, people[rng.integers(cast)])
                           for _ in progress(range(n), desc="drawing avatars")])
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")   # processes drawing at once do not collide
        np.savez_compressed(tmp, images=images)
        tmp.replace(path)
    return (images.transpose(0, 3, 1, 2).astype(np.float32) / 127.5 - 1.0)


def generator(nz: int, ngf: int, n_up: int) -> nn.Sequential:
    """Noise ``(N, nz, 1, 1)`` -> image ``(N, 3, 6 * 2**n_up, 6 * 2**n_up)`` in [-1, 1]."""
    ch = ngf * 2 ** (n_up - 1)
    layers = [nn.ConvTranspose2d(nz, ch, 6, 1, 0, bias=False), nn.BatchNorm2d(ch), nn.ReLU(True)]
    for _ in range(n_up - 1):
        layers += [nn.ConvTranspose2d(ch, ch // 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ch // 2), nn.ReLU(True)]
        ch //= 2
    layers += [nn.ConvTranspose2d(ch, 3, 4, 2, 1, bias=False), nn.Tanh()]
    return nn.Sequential(*layers)


def discriminator(ndf: int, n_down: int) -> nn.Sequential:
    """Image ``(N, 3, 6 * 2**n_down, ...)`` -> probability ``(N,)`` that it is a real avatar."""
    layers = [nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True)]
    ch = ndf
    for _ in range(n_down - 1):
        layers += [nn.Conv2d(ch, ch * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ch * 2), nn.LeakyReLU(0.2, inplace=True)]
        ch *= 2
    layers += [nn.Conv2d(ch, 1, 6, 1, 0, bias=False), nn.Sigmoid(), nn.Flatten(0)]
    return nn.Sequential(*layers)


def dcgan_init(module: nn.Module) -> None:
    """The DCGAN initialisation: conv weights from N(0, 0.02), BatchNorm from N(1, 0.02) and 0."""
    if isinstance(module, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.normal_(module.weight, 0.0, 0.02)
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.normal_(module.weight, 1.0, 0.02)
        nn.init.zeros_(module.bias)


def nearest_distance(samples: np.ndarray, train: np.ndarray) -> float:
    """Mean over samples of the RMS pixel distance to the nearest training image."""
    a = samples.reshape(len(samples), -1).astype(np.float64)
    b = train.reshape(len(train), -1).astype(np.float64)
    d2 = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T
    return float(np.sqrt(np.maximum(d2.min(1), 0.0) / a.shape[1]).mean())


def diversity(samples: np.ndarray) -> float:
    """Per-pixel standard deviation across samples, averaged over pixels and channels."""
    return float(samples.std(axis=0).mean())


@torch.no_grad()
def sample(netG: nn.Module, noise) -> np.ndarray:
    """Images from ``noise`` with the generator in eval mode (BatchNorm running statistics)."""
    netG.eval()
    out = to_numpy(netG(noise))
    netG.train()
    return out


def train(cfg: dict, out: str, seed: int = 0) -> dict:
    """Train the DCGAN; write the grids and the checkpoint into ``out``; return the measures."""
    torch.manual_seed(seed)
    n_up = {24: 2, 48: 3, 96: 4}[cfg["size"]]
    data = avatar_dataset(cfg["n_images"], cfg["size"], seed, cfg.get("cast", CAST))
    print(f"data: {len(data)} procedurally drawn avatars of {cfg['size']}x{cfg['size']} (cached in {cache_dir()})")
    save_grid(data[:64], f"{out}/gan_training_images.png", scale=2)
    loader = DataLoader(TensorDataset(torch.from_numpy(data)), batch_size=cfg["batch_size"], shuffle=True,
                        drop_last=True)
    netG, netD = generator(cfg["nz"], cfg["ngf"], n_up), discriminator(cfg["ndf"], n_up)
    if cfg.get("dcgan_init", True):
        netG.apply(dcgan_init)
        netD.apply(dcgan_init)
    optG = torch.optim.Adam(netG.parameters(), lr=cfg["lr_g"], betas=(0.5, 0.999))
    optD = torch.optim.Adam(netD.parameters(), lr=cfg["lr_d"], betas=(0.5, 0.999))
    criterion = nn.BCELoss()
    fixed_noise = torch.randn(64, cfg["nz"], 1, 1)
    before = sample(netG, fixed_noise)
    d_before = nearest_distance(before, data)
    with torch.no_grad():   # the same untrained net sampled with batch statistics (a copy: BN's running stats move)
        d_before_train_mode = nearest_distance(to_numpy(copy.deepcopy(netG).train()(fixed_noise)), data)
    print(f"untrained generator: nearest-training-image distance {d_before:.4f} in eval mode (the baseline), "
          f"{d_before_train_mode:.4f} in train mode; diversity {diversity(before):.4f}")
    ones, zeros = torch.ones(cfg["batch_size"]), torch.zeros(cfg["batch_size"])
    real_label = torch.full((cfg["batch_size"],), cfg.get("real_label", 1.0))
    t0 = time.perf_counter()
    for epoch in range(1, cfg["epochs"] + 1):
        bar = progress(loader, desc=f"epoch {epoch}/{cfg['epochs']}")
        sum_d = sum_g = 0.0
        for i, (real,) in enumerate(bar):
            optD.zero_grad()                                    # discriminator: real -> 1, fake -> 0
            loss_real = criterion(netD(real), real_label)
            loss_real.backward()
            noise = torch.randn(cfg["batch_size"], cfg["nz"], 1, 1)
            fake = netG(noise).detach()
            loss_fake = criterion(netD(fake), zeros)
            loss_fake.backward()
            optD.step()
            sum_d += loss_real.item() + loss_fake.item()
            if i % 2 == 0:                                      # generator every other batch
                optG.zero_grad()
                loss_g = criterion(netD(netG(noise)), ones)
                loss_g.backward()
                optG.step()
                sum_g += loss_g.item()
                bar.set_postfix(loss_d=f"{loss_real.item() + loss_fake.item():.3f}", loss_g=f"{loss_g.item():.3f}")
        n = len(loader)
        samples = sample(netG, fixed_noise)
        save_grid(samples, f"{out}/gan_epoch_{epoch}.png", scale=2)
        print(f"epoch {epoch}/{cfg['epochs']}: loss_D {sum_d / n:.3f}  loss_G {sum_g / ((n + 1) // 2):.3f}  "
              f"nearest distance {nearest_distance(samples, data):.4f}  diversity {diversity(samples):.4f}  "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    after = sample(netG, fixed_noise)
    final_png = save_grid(after, f"{out}/gan_avatars.png", scale=2)
    ckpt = f"{out}/gan_checkpoint.pt"
    torch.save({"netG": netG.state_dict(), "netD": netD.state_dict(), "optG": optG.state_dict(),
                "optD": optD.state_dict(), "config": cfg, "epoch": cfg["epochs"]}, ckpt)
    state = torch.load(ckpt)
    G2 = generator(cfg["nz"], cfg["ngf"], n_up)
    G2.load_state_dict(state["netG"])
    D2 = discriminator(cfg["ndf"], n_up)
    D2.load_state_dict(state["netD"])
    reload_diff = float(np.abs(sample(G2, fixed_noise) - after).max())
    d_after = nearest_distance(after, data)
    result = dict(distance_before=d_before, distance_after=d_after, diversity=diversity(after),
                  train_diversity=diversity(data[:64]), reload_diff=reload_diff,
                  seconds=time.perf_counter() - t0)
    print(f"checkpoint saved to {ckpt} and reloaded: max |samples difference| = {reload_diff:.3g}")
    print(f"nearest-training-image distance of 64 samples: untrained {d_before:.4f} -> trained {d_after:.4f} "
          f"(fell {d_before / d_after:.2f}x)")
    print(f"sample diversity (per-pixel std across 64 samples): {result['diversity']:.4f} "
          f"(floor {DIVERSITY_FLOOR}; 64 training images: {result['train_diversity']:.4f})")
    print(f"final grid saved to {final_png}; training took {result['seconds']:.0f} s")
    return result


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m ember.examples.gan_avatars", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=".", help="directory for the PNG grids and the checkpoint (default: .)")
    parser.add_argument("--tiny", action="store_true", help="24x24 avatars, small nets, a few epochs (CI size)")
    parser.add_argument("--epochs", type=int, help="override the number of epochs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cfg = dict(TINY if args.tiny else FULL)
    if args.epochs:
        cfg["epochs"] = args.epochs
    return train(cfg, args.out, args.seed)


if __name__ == "__main__":
    main()
