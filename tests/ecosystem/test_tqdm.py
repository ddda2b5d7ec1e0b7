"""tqdm over an ember DataLoader takes its length as total, as with torch's."""
from ._harness import run_both

SCRIPT = """
import io, json, torch
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm
ds = TensorDataset(torch.arange(10.), torch.arange(10))
out = []
for drop_last in (False, True):
    buf = io.StringIO()
    bar = tqdm(DataLoader(ds, batch_size=4, drop_last=drop_last), file=buf)
    n = sum(1 for _ in bar)
    out.append([bar.total, n])
print(json.dumps(out))
"""


def test_total_is_len_of_loader(tmp_path):
    theirs, ours = run_both(SCRIPT, tmp_path)
    assert ours == theirs == [[3, 3], [2, 2]]
