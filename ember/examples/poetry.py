"""AI poetry: a character-level LSTM that writes classical Chinese poems (the book's "AI poetry").

Run ``python -m ember.examples.poetry [--out DIR] [--tiny] [--start 湖光秋月兩相和] [--acrostic 深度學習]``.

1. Corpus. *Three Hundred Tang Poems* (唐詩三百首: 320 poems, ~22,700 characters, traditional
   characters), shipped with ember as ``ember/examples/data/tang300_traditional.tsv``; provenance
   and licence in ``tang300_traditional.LICENSE`` beside it (public-domain poems; the digital text is
   the MIT-licensed npm package ``chinese-poetry`` 2.0.1, editorial notes removed by
   ``tools/make_tang_poems.py``). Start words and acrostics must use the corpus's (traditional)
   characters. 10% of the poems are held out. Every poem becomes ``<START> characters <EOP>``; the
   training poems are joined into one stream and cut into windows.
2. Model, as in the book: ``Embedding -> 2-layer LSTM -> Linear`` over the corpus's characters,
   trained with cross-entropy and Adam. Progress bars show the loss; after training the held-out
   loss (nats per character) is compared with the entropy of the corpus's character (unigram)
   distribution, the loss of the best model that ignores context.
3. Writing. A poem that continues given start words, an acrostic poem (each line -- a clause ended
   by ，。！？； -- begins with the next given character; should the model run past 12 characters
   without ending a line, the line is closed with whichever of ，。 it finds more likely), all sampled
   with a temperature from the corpus's characters only. The model is saved with ``ember.save``,
   reloaded, and must write the same poem again. Output goes to stdout and ``DIR/poems.txt``.
"""
from __future__ import annotations

import argparse
import math
import time
from importlib import resources

import numpy as np

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.examples._book_common import progress

START, EOP = "<START>", "<EOP>"
LINE_END = "，。！？；"
MAX_LINE = 12
CORPUS = "data/tang300_traditional.tsv"

FULL = dict(embedding=128, hidden=256, seq_len=48, batch_size=32, epochs=25, lr=2e-3)
TINY = dict(embedding=48, hidden=96, seq_len=32, batch_size=16, epochs=6, lr=1e-2)


def load_corpus() -> list[str]:
    """The poems' bodies (punctuation included, no titles or authors), in file order."""
    text = resources.files("ember.examples").joinpath(CORPUS).read_text(encoding="utf-8")
    return [line.split("\t")[2] for line in text.splitlines() if line and not line.startswith("#")]


class Vocab:
    """Characters <-> ids; ids 0 and 1 are ``<START>`` and ``<EOP>``."""

    def __init__(self, poems):
        self.itos = [START, EOP] + sorted(set("".join(poems)))
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode_poems(self, poems) -> np.ndarray:
        ids = []
        for p in poems:
            ids += [0] + [self.stoi[ch] for ch in p] + [1]
        return np.array(ids, dtype=np.int64)


class PoetryModel(nn.Module):
    """``(T, N)`` character ids -> ``(T, N, vocab)`` next-character logits (and the LSTM state)."""

    def __init__(self, vocab_size: int, embedding: int, hidden: int):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, embedding)
        self.lstm = nn.LSTM(embedding, hidden, num_layers=2)
        self.linear = nn.Linear(hidden, vocab_size)

    def forward(self, ids, state=None):
        out, state = self.lstm(self.embeddings(ids), state)
        return self.linear(out), state


def windows(stream: np.ndarray, seq_len: int) -> np.ndarray:
    """Cut a token stream into ``(n, seq_len + 1)`` windows (input = [:-1], target = [1:])."""
    n = (len(stream) - 1) // seq_len
    return np.stack([stream[i * seq_len:i * seq_len + seq_len + 1] for i in range(n)])


def unigram_entropy(stream: np.ndarray) -> float:
    """Entropy (nats) of the token frequencies of ``stream``."""
    p = np.bincount(stream) / len(stream)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


@torch.no_grad()
def mean_loss(model, stream: np.ndarray, seq_len: int) -> float:
    """Cross-entropy (nats per predicted token) over a whole token stream."""
    model.eval()
    w = torch.from_numpy(windows(stream, seq_len)).t()   # (T + 1, N)
    logits, _ = model(w[:-1])
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), w[1:].reshape(-1)).item()
    model.train()
    return loss


def train(model, stream: np.ndarray, held_out: np.ndarray, cfg: dict, seed: int = 0) -> list[float]:
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, cfg["epochs"])
    data = torch.from_numpy(windows(stream, cfg["seq_len"]))
    history = []
    for epoch in range(1, cfg["epochs"] + 1):
        order = torch.randperm(len(data), generator=gen)
        batches = [order[i:i + cfg["batch_size"]] for i in range(0, len(data), cfg["batch_size"])]
        bar = progress(batches, desc=f"epoch {epoch}/{cfg['epochs']}")
        total = 0.0
        for idx in bar:
            w = data[idx].t()                                 # (T + 1, N), time first as in the book
            logits, _ = model(w[:-1])
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), w[1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            total += loss.item()
            bar.set_postfix(loss=f"{loss.item():.3f}")
        sched.step()
        held = mean_loss(model, held_out, cfg["seq_len"])
        history.append(held)
        print(f"epoch {epoch}/{cfg['epochs']}: train loss {total / len(batches):.3f}  held-out loss {held:.3f}",
              flush=True)
    return history


class Writer:
    """Feeds characters to the model one at a time and samples the next with a temperature."""

    def __init__(self, model, vocab: Vocab, temperature: float, generator):
        self.model, self.vocab, self.t, self.gen = model, vocab, temperature, generator
        self.state = None
        self.logits = None

    def feed(self, ch: str) -> None:
        ids = torch.tensor([[self.vocab.stoi[ch]]])
        out, self.state = self.model(ids, self.state)
        self.logits = out[0, 0]

    def sample(self, allow_end: bool = True) -> str:
        logits = self.logits.clone()
        logits[0] = -math.inf                                # never <START> inside a poem
        if not allow_end:
            logits[1] = -math.inf
        probs = F.softmax(logits / self.t, dim=0)
        return self.vocab.itos[int(torch.multinomial(probs, 1, generator=self.gen))]

    def likelier(self, options: str) -> str:
        return max(options, key=lambda ch: float(self.logits[self.vocab.stoi[ch]]))


@torch.no_grad()
def write_poem(model, vocab: Vocab, start_words: str, temperature: float = 0.8, max_len: int = 96,
               seed: int = 0) -> str:
    """A poem that begins with ``start_words`` and continues until ``<EOP>`` or ``max_len``."""
    model.eval()
    w = Writer(model, vocab, temperature, torch.Generator().manual_seed(seed))
    w.feed(START)
    poem = ""
    for ch in start_words:
        w.feed(ch)
        poem += ch
    while len(poem) < max_len:
        ch = w.sample()
        if ch == EOP:
            break
        poem += ch
        w.feed(ch)
    return poem


@torch.no_grad()
def write_acrostic(model, vocab: Vocab, heads: str, temperature: float = 0.8, seed: int = 0) -> str:
    """One line per character of ``heads``, each line beginning with that character."""
    model.eval()
    w = Writer(model, vocab, temperature, torch.Generator().manual_seed(seed))
    w.feed(START)
    poem = ""
    for k, head in enumerate(heads):
        line = head
        w.feed(head)
        while line[-1] not in LINE_END:
            ch = w.sample(allow_end=False) if len(line) < MAX_LINE else w.likelier("，。")
            line += ch
            w.feed(ch)
        poem += line
    return poem


def lines_of(poem: str) -> list[str]:
    """Split a poem after each of ，。！？； (the last piece may be unterminated)."""
    out, cur = [], ""
    for ch in poem:
        cur += ch
        if ch in LINE_END:
            out.append(cur)
            cur = ""
    return out + ([cur] if cur else [])


def run(cfg: dict, out: str, start: str, acrostic: str, seed: int = 0) -> dict:
    torch.manual_seed(seed)
    t0 = time.perf_counter()
    poems = load_corpus()
    vocab = Vocab(poems)
    order = np.random.default_rng(seed).permutation(len(poems))
    n_held = len(poems) // 10
    held_poems = [poems[i] for i in order[:n_held]]
    train_poems = [poems[i] for i in order[n_held:]]
    stream, held = vocab.encode_poems(train_poems), vocab.encode_poems(held_poems)
    entropy = unigram_entropy(stream)
    print(f"corpus: {len(poems)} Tang poems, {sum(map(len, poems))} characters, {len(vocab) - 2} distinct; "
          f"{len(train_poems)} for training, {len(held_poems)} held out")
    print(f"unigram entropy of the training characters: {entropy:.3f} nats")
    model = PoetryModel(len(vocab), cfg["embedding"], cfg["hidden"])
    history = train(model, stream, held, cfg, seed)
    held_loss = history[-1]
    print(f"held-out loss {held_loss:.3f} nats vs unigram entropy {entropy:.3f} "
          f"({'below' if held_loss < entropy else 'NOT below'})")

    path = f"{out}/poetry_model.pt"
    torch.save({"model": model.state_dict(), "vocab": vocab.itos, "config": cfg}, path)
    saved = torch.load(path)
    model2 = PoetryModel(len(saved["vocab"]), cfg["embedding"], cfg["hidden"])
    model2.load_state_dict(saved["model"])
    poem = write_poem(model, vocab, start, seed=seed)
    poem_reloaded = write_poem(model2, vocab, start, seed=seed)
    hot = write_poem(model2, vocab, start, temperature=1.2, seed=seed)
    acro = write_acrostic(model2, vocab, acrostic, seed=seed)
    text = (f"start words {start} (temperature 0.8):\n" + "\n".join(lines_of(poem)) +
            f"\n\nstart words {start} (temperature 1.2):\n" + "\n".join(lines_of(hot)) +
            f"\n\nacrostic {acrostic} (temperature 0.8):\n" + "\n".join(lines_of(acro)) + "\n")
    with open(f"{out}/poems.txt", "w", encoding="utf-8") as f:
        f.write(text)
    print(text)
    print(f"model saved to {path} and reloaded: same poem {'yes' if poem == poem_reloaded else 'NO'}; "
          f"poems written to {out}/poems.txt; total {time.perf_counter() - t0:.0f} s")
    return dict(entropy=entropy, held_loss=held_loss, history=history, poem=poem, hot=hot, acrostic=acro,
                same_after_reload=poem == poem_reloaded, charset="".join(vocab.itos[2:]))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m ember.examples.poetry", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=".", help="directory for the model and poems.txt (default: .)")
    parser.add_argument("--tiny", action="store_true", help="a small model and few epochs (CI size)")
    parser.add_argument("--start", default="湖光秋月兩相和", help="start words of the first poem")
    parser.add_argument("--acrostic", default="深度學習", help="characters that begin the acrostic's lines")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    vocab = set("".join(load_corpus()))
    missing = [ch for ch in args.start + args.acrostic if ch not in vocab]
    if missing:
        parser.error(f"characters not in the corpus: {''.join(missing)} (the corpus is in traditional characters)")
    return run(dict(TINY if args.tiny else FULL), args.out, args.start, args.acrostic, args.seed)


if __name__ == "__main__":
    main()
