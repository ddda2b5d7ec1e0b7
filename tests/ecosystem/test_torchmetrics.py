"""torchmetrics' classification and regression metrics (module and functional forms, a
MetricCollection, accumulation over batches) on ember under the alias, compared with torch."""
from ._harness import assert_same, run_both

SCRIPT = """
import json, torch
import torchmetrics as tm
import torchmetrics.functional as F
from torchmetrics.classification import (BinaryAccuracy, BinaryAUROC, BinaryF1Score, MulticlassAccuracy,
    MulticlassConfusionMatrix, MulticlassF1Score, MulticlassPrecision, MulticlassRecall)
from torchmetrics.regression import MeanAbsoluteError, MeanSquaredError, PearsonCorrCoef, R2Score
# deterministic data (ember's random streams differ from torch's by design)
i = torch.arange(160.)
probs = (i * 0.37).sin().reshape(40, 4).softmax(-1)
target = (torch.arange(40) * 7 + torch.arange(40) // 3) % 4
bp, bt = ((i[:40] * 0.61).cos() + 1) / 2, (torch.arange(40) * 5 // 3) % 2
yp, yt = (i[:40] * 0.23).sin() * 2, (i[:40] * 0.29).cos() * 2
out = {}
coll = tm.MetricCollection({"acc": MulticlassAccuracy(num_classes=4), "f1": MulticlassF1Score(num_classes=4),
                            "prec": MulticlassPrecision(num_classes=4, average="macro"),
                            "rec": MulticlassRecall(num_classes=4, average="micro"),
                            "cm": MulticlassConfusionMatrix(num_classes=4)})
for i in range(0, 40, 10):  # accumulate over 4 batches
    coll.update(probs[i:i + 10], target[i:i + 10])
out["collection"] = {k: v.tolist() for k, v in coll.compute().items()}
for name, m in {"bacc": BinaryAccuracy(), "bf1": BinaryF1Score(), "auroc": BinaryAUROC()}.items():
    out[name] = m(bp, bt).item()
for name, m in {"mse": MeanSquaredError(), "mae": MeanAbsoluteError(), "r2": R2Score(),
                "pearson": PearsonCorrCoef()}.items():
    m.update(yp[:20], yt[:20]); m.update(yp[20:], yt[20:])
    out[name] = m.compute().item()
out["functional"] = [F.accuracy(probs, target, task="multiclass", num_classes=4).item(),
                     F.mean_squared_error(yp, yt).item(),
                     F.f1_score(bp, bt, task="binary").item()]
print(json.dumps(out))
"""


def test_metrics_match_torch(tmp_path):
    theirs, ours = run_both(SCRIPT, tmp_path)
    assert_same(ours, theirs)
