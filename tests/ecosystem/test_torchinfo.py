"""torchinfo's summary table of ember models under the alias equals the one it prints for torch."""
from ._harness import run_both

SCRIPT = """
import json, torch, torch.nn as nn
from torchinfo import summary
cnn = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                    nn.Linear(4 * 13 * 13, 10))
class Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.head = nn.Linear(16, 20)
    def forward(self, x):
        h, _ = self.lstm(self.emb(x))
        return self.head(h)
s1 = summary(cnn, input_size=(2, 1, 28, 28), verbose=0)
s2 = summary(Seq(), input_data=torch.zeros(3, 7, dtype=torch.long), verbose=0,
             col_names=("input_size", "output_size", "num_params", "trainable"))
print(json.dumps([str(s1), str(s2), s1.total_params, s2.trainable_params]))
"""


def test_summary_table_matches_torch(tmp_path):
    theirs, ours = run_both(SCRIPT, tmp_path)
    assert ours[2:] == theirs[2:]
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
