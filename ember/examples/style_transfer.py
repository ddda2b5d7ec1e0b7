"""AI filter: neural style transfer, both by optimising an image and with a feed-forward network.

Run ``python -m ember.examples.style_transfer [--out DIR] [--tiny]``. Steps:

1. Pictures. Content: the photograph of Grace Hopper that matplotlib ships as sample data
   (``matplotlib.cbook.get_sample_data('grace_hopper.jpg')``; US Navy photo, public domain), cut to a
   square. Style: a swirling two-palette wave pattern drawn with NumPy at run time (seeded), in the
   spirit of a painting's brush strokes. Both are resized to ``size x size`` (64 with ``--tiny``).
2. Features. A VGG-like network (3x3 convolutions and ReLUs in four blocks joined by 2x2 average
   pooling). Its weights are **random** (He-normal, fixed seed) and frozen: no ImageNet weights can
   be downloaded here, and random multi-layer filters are known to capture texture statistics well
   enough for texture synthesis and style transfer (Ustyuzhaninov et al., "Texture synthesis using
   shallow convolutional networks with random filters", 2016; He et al., "A powerful generative
   model using random weights for the deep image representation", NeurIPS 2016). Style = the Gram
   matrices of the four blocks' activations; content = the third block's activations.
3. Optimisation (Gatys et al.): start from the photo and run Adam on its pixels to lower
   ``style_weight * style_loss + content_loss``; writes ``DIR/style_optimised.png``.
4. Feed-forward (Johnson et al.): a residual network with instance normalisation (9x9 conv, two
   stride-2 convs, residual blocks, two nearest-upsample convs, 9x9 conv) trained with the same
   perceptual loss on random crops of other pictures (procedural cartoon faces from
   ``gan_avatars`` and crops of matplotlib's sample image ``Minduka_Present_Blue_Pack.png``), then
   applied to the photo, which it never saw in training; writes ``DIR/style_feedforward.png``.
   The net is saved with ``ember.save`` and reloaded before it is applied.
5. ``DIR/style_transfer.png`` puts content, style, optimised and feed-forward results side by side.

Losses are reported for: the photo itself (style loss before), the optimised image, and the
feed-forward output; the content loss of the style picture is printed as the scale a content loss
is measured against (the content an image loses entirely when replaced by the style picture).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.examples._book_common import progress, save_png, to_numpy

FULL = dict(size=128, steps=300, ff_width=8, ff_blocks=2, ff_steps=400, ff_batch=4, crop=128)
TINY = dict(size=64, steps=80, ff_width=8, ff_blocks=2, ff_steps=160, ff_batch=4, crop=64)
STYLE_WEIGHT = 0.03
CONTENT_BOUND = 0.5   # the optimised image keeps content loss below this fraction of the style picture's


# ----------------------------------------------------------------------------- pictures
def _square(img, size: int) -> np.ndarray:
    from PIL import Image
    w, h = img.size
    side = min(w, h)
    img = img.convert("RGB").crop(((w - side) // 2, 0 if h > w else (h - side) // 2,
                                   (w - side) // 2 + side, (0 if h > w else (h - side) // 2) + side))
    return np.asarray(img.resize((size, size), Image.LANCZOS), dtype=np.float32) / 255.0


def content_picture(size: int) -> np.ndarray:
    """Grace Hopper's portrait from matplotlib's sample data: ``(3, size, size)`` in [0, 1]."""
    from matplotlib import cbook
    from PIL import Image
    with cbook.get_sample_data("grace_hopper.jpg") as f:
        return _square(Image.open(f), size).transpose(2, 0, 1).copy()


def style_picture(size: int, seed: int = 0) -> np.ndarray:
    """A swirling wave pattern in night-blue and gold: ``(3, size, size)`` in [0, 1]."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:1:size * 1j, 0:1:size * 1j]
    phase = rng.uniform(0, 2 * np.pi, 4)
    warp_x = x + 0.08 * np.sin(2 * np.pi * (3 * y + phase[0]))
    warp_y = y + 0.08 * np.sin(2 * np.pi * (3 * x + phase[1]))
    v = np.sin(2 * np.pi * (7 * warp_x + 2 * np.sin(2 * np.pi * warp_y) + phase[2]))
    v += np.sin(2 * np.pi * (6 * warp_y + phase[3]))
    t = (v - v.min()) / (v.max() - v.min())
    palette = np.array([[0.05, 0.08, 0.30], [0.15, 0.35, 0.75], [0.95, 0.85, 0.30], [0.98, 0.98, 0.85]])
    stops = np.linspace(0, 1, len(palette))
    rgb = np.stack([np.interp(t, stops, palette[:, c]) for c in range(3)])
    return rgb.astype(np.float32)


def training_pictures(crop: int, n: int, seed: int = 0) -> np.ndarray:
    """``(n, 3, crop, crop)`` pictures the feed-forward net learns on (never the content photo)."""
    from matplotlib import cbook
    from PIL import Image
    from ember.examples.gan_avatars import character, draw_avatar
    rng = np.random.default_rng(seed)
    with cbook.get_sample_data("Minduka_Present_Blue_Pack.png") as f:
        big = np.asarray(Image.open(f).convert("RGB"), dtype=np.float32) / 255.0
    out = []
    for k in range(n):
        if k % 2 == 0:
            out.append(draw_avatar(rng, crop, character(rng)).astype(np.float32) / 255.0)
        else:
            side = int(rng.integers(crop, min(big.shape[:2]) + 1))
            top, left = rng.integers(0, big.shape[0] - side + 1), rng.integers(0, big.shape[1] - side + 1)
            patch = Image.fromarray((big[top:top + side, left:left + side] * 255).astype(np.uint8))
            out.append(np.asarray(patch.resize((crop, crop), Image.LANCZOS), dtype=np.float32) / 255.0)
    return np.stack(out).transpose(0, 3, 1, 2).copy()


# ----------------------------------------------------------------------------- features and losses
class RandomVGG(nn.Module):
    """A VGG-like feature extractor with frozen random weights; returns the centred input and the
    four blocks' ReLU maps."""

    def __init__(self, widths=(16, 32, 64, 64), seed: int = 0):
        super().__init__()
        gen = torch.Generator().manual_seed(seed)
        blocks, c_in = [], 3
        for i, w in enumerate(widths):
            layers = [] if i == 0 else [nn.AvgPool2d(2)]
            layers += [nn.Conv2d(c_in, w, 3, padding=1), nn.ReLU(), nn.Conv2d(w, w, 3, padding=1), nn.ReLU()]
            blocks.append(nn.Sequential(*layers))
            c_in = w
        self.blocks = nn.ModuleList(blocks)
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    fan_in = m.weight[0].numel()
                    m.weight.copy_(torch.randn(m.weight.shape, generator=gen) * (2.0 / fan_in) ** 0.5)
                    m.bias.zero_()
        self.requires_grad_(False)

    def forward(self, x):
        x = x - 0.5
        feats = [x]   # the centred pixels: their Gram matrix holds the colour statistics
        for block in self.blocks:
            x = block(x)
            feats.append(x)
        return feats


def gram(f):
    """``(B, C, H, W)`` -> ``(B, C, C)`` channel correlations averaged over positions."""
    b, c, h, w = f.shape
    flat = f.reshape(b, c, h * w)
    return flat.bmm(flat.transpose(1, 2)) / (h * w)


class PerceptualLoss:
    """Style (Gram matrices of the pixels and of every block) and content (block 3) losses."""

    def __init__(self, vgg: RandomVGG, style):
        self.vgg = vgg
        with torch.no_grad():
            self.style_grams = [gram(f) for f in vgg(style.unsqueeze(0))]

    def style(self, feats):
        return sum(F.mse_loss(gram(f), g.expand(f.shape[0], -1, -1)) / (g * g).mean()
                   for f, g in zip(feats, self.style_grams)) / len(feats)

    @staticmethod
    def content(feats, target_feats):
        return F.mse_loss(feats[3], target_feats[3])

    def measure(self, images, content_images) -> tuple[float, float]:
        with torch.no_grad():
            feats = self.vgg(images)
            return self.style(feats).item(), self.content(feats, self.vgg(content_images)).item()


# ----------------------------------------------------------------------------- the two methods
def optimise_image(loss: PerceptualLoss, content, steps: int, lr: float = 0.03):
    """Adam on the pixels of a copy of ``content``, clamped to [0, 1] after every step."""
    x = content.unsqueeze(0).clone().requires_grad_(True)
    with torch.no_grad():
        target = loss.vgg(content.unsqueeze(0))
    opt = torch.optim.Adam([x], lr=lr)
    bar = progress(range(steps), desc="optimising the image")
    for _ in bar:
        opt.zero_grad()
        feats = loss.vgg(x)
        s, c = loss.style(feats), loss.content(feats, target)
        (STYLE_WEIGHT * s + c).backward()
        opt.step()
        with torch.no_grad():
            x.clamp_(0, 1)
        bar.set_postfix(style=f"{s.item():.4f}", content=f"{c.item():.4f}")
    return x.detach()[0]


class ResidualBlock(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.body = nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3), nn.InstanceNorm2d(c, affine=True),
                                  nn.ReLU(), nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3),
                                  nn.InstanceNorm2d(c, affine=True))

    def forward(self, x):
        return x + self.body(x)


def transform_net(width: int, blocks: int) -> nn.Sequential:
    """Image ``(N, 3, H, W)`` -> stylised image of the same shape in [0, 1] (H, W divisible by 4)."""
    def conv(c_in, c_out, k, stride=1):
        return [nn.ReflectionPad2d(k // 2), nn.Conv2d(c_in, c_out, k, stride), nn.InstanceNorm2d(c_out, affine=True),
                nn.ReLU()]
    w = width
    layers = conv(3, w, 9) + conv(w, 2 * w, 3, 2) + conv(2 * w, 4 * w, 3, 2)
    layers += [ResidualBlock(4 * w) for _ in range(blocks)]
    layers += [nn.Upsample(scale_factor=2, mode="nearest")] + conv(4 * w, 2 * w, 3)
    layers += [nn.Upsample(scale_factor=2, mode="nearest")] + conv(2 * w, w, 3)
    layers += [nn.ReflectionPad2d(4), nn.Conv2d(w, 3, 9), nn.Sigmoid()]
    return nn.Sequential(*layers)


def train_feedforward(loss: PerceptualLoss, pictures, cfg: dict, seed: int = 0) -> nn.Module:
    """Train ``transform_net`` with the perceptual loss on minibatches of ``pictures``."""
    torch.manual_seed(seed)
    net = transform_net(cfg["ff_width"], cfg["ff_blocks"])
    opt = torch.optim.Adam(net.parameters(), lr=cfg.get("ff_lr", 3e-3))
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, cfg["ff_steps"])
    data = torch.from_numpy(pictures)
    bar = progress(range(cfg["ff_steps"]), desc="training the feed-forward net")
    for _ in bar:
        batch = data[torch.randint(0, len(data), (cfg["ff_batch"],))]
        with torch.no_grad():
            target = loss.vgg(batch)
        feats = loss.vgg(net(batch))
        s, c = loss.style(feats), loss.content(feats, target)
        opt.zero_grad()
        (STYLE_WEIGHT * s + c).backward()
        opt.step()
        sched.step()
        bar.set_postfix(style=f"{s.item():.4f}", content=f"{c.item():.4f}")
    return net


def run(cfg: dict, out: str, seed: int = 0) -> dict:
    torch.manual_seed(seed)
    t0 = time.perf_counter()
    size = cfg["size"]
    content = torch.from_numpy(content_picture(size))
    style = torch.from_numpy(style_picture(size, seed))
    vgg = RandomVGG(seed=seed)
    loss = PerceptualLoss(vgg, style)
    c_img = content.unsqueeze(0)
    style_before, _ = loss.measure(c_img, c_img)
    _, content_of_style = loss.measure(style.unsqueeze(0), c_img)
    print(f"content: grace_hopper.jpg at {size}x{size}; style: generated wave pattern; features: random VGG-like net")
    print(f"photo: style loss {style_before:.4f}; style picture: content loss {content_of_style:.4f}")

    t1 = time.perf_counter()
    optimised = optimise_image(loss, content, cfg["steps"])
    style_opt, content_opt = loss.measure(optimised.unsqueeze(0), c_img)
    save_png(_hwc(optimised), f"{out}/style_optimised.png")
    print(f"optimised image ({cfg['steps']} Adam steps, {time.perf_counter() - t1:.0f} s): style loss "
          f"{style_before:.4f} -> {style_opt:.4f} (fell {style_before / style_opt:.1f}x), content loss "
          f"{content_opt:.4f} = {content_opt / content_of_style:.3f} of the style picture's "
          f"(bound {CONTENT_BOUND})")

    t2 = time.perf_counter()
    pictures = training_pictures(cfg["crop"], 64, seed)
    net = train_feedforward(loss, pictures, cfg, seed)
    path = f"{out}/style_net.pt"
    torch.save(net.state_dict(), path)
    net2 = transform_net(cfg["ff_width"], cfg["ff_blocks"])
    net2.load_state_dict(torch.load(path))
    net2.eval()
    with torch.no_grad():
        styled = net2(c_img)[0]
    style_ff, content_ff = loss.measure(styled.unsqueeze(0), c_img)
    save_png(_hwc(styled), f"{out}/style_feedforward.png")
    print(f"feed-forward net ({cfg['ff_steps']} steps on {len(pictures)} other pictures, "
          f"{time.perf_counter() - t2:.0f} s; saved to {path} and reloaded) on the unseen photo: style loss "
          f"{style_ff:.4f} = {style_ff / style_opt:.2f}x the optimised image's, content loss {content_ff:.4f}")
    panel = np.concatenate([_hwc(x) for x in (content, style, optimised, styled)], axis=1)
    png = save_png(panel, f"{out}/style_transfer.png", scale=max(1, 256 // size))
    print(f"content | style | optimised | feed-forward saved to {png}; total {time.perf_counter() - t0:.0f} s")
    return dict(style_before=style_before, style_opt=style_opt, content_opt=content_opt,
                content_of_style=content_of_style, style_ff=style_ff, content_ff=content_ff)


def _hwc(img) -> np.ndarray:
    return (np.clip(to_numpy(img).transpose(1, 2, 0), 0, 1) * 255 + 0.5).astype(np.uint8)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m ember.examples.style_transfer", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=".", help="directory for the PNGs and the network (default: .)")
    parser.add_argument("--tiny", action="store_true", help="64x64 pictures, a small net, few steps (CI size)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return run(dict(TINY if args.tiny else FULL), args.out, args.seed)


if __name__ == "__main__":
    main()
