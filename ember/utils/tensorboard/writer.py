"""SummaryWriter with torch.utils.tensorboard's methods, on tensorboardX's event writer.

ember tensors are converted to NumPy before they reach tensorboardX; ``add_graph`` records the graph
of an ``ember.fx`` symbolic trace as a TensorBoard GraphDef.
"""
from __future__ import annotations

import os

from ..._tensor import Tensor

__all__ = ["SummaryWriter"]

_MISSING = ("ember.utils.tensorboard needs the tensorboardX package, which is not installed. "
            "Install it with `pip install tensorboardX` (or `pip install ember[tensorboard]`).")


def _base():
    try:
        import tensorboardX
    except ImportError:  # the optional extra is absent
        raise ModuleNotFoundError(_MISSING) from None
    return tensorboardX.SummaryWriter


def _np(x):
    """ember tensors (also nested in lists/dicts) to NumPy; everything else unchanged."""
    if isinstance(x, Tensor):
        x = x.detach()
        if x.dtype.name in ("bfloat16", "float16"):
            x = x.float()
        return x.numpy()
    if isinstance(x, dict):
        return {k: _np(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_np(v) for v in x]
    return x


def _scalar(x):
    if isinstance(x, Tensor):
        return x.item()
    return x


class SummaryWriter:
    """Writes scalars, histograms, images, text, hyper-parameters and graphs to ``log_dir``.

    Args:
        log_dir: directory for event files (default ``runs/<date>_<host><comment>``).
        comment, purge_step, max_queue, flush_secs, filename_suffix: as torch's SummaryWriter.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        self._writer = _base()(logdir=log_dir, comment=comment, purge_step=purge_step,
                               max_queue=max_queue, flush_secs=flush_secs,
                               filename_suffix=filename_suffix)
        self.log_dir = self._writer.logdir
        self._runs = {}  # add_scalars' per-tag writers, by run directory
        self._max_queue, self._flush_secs, self._filename_suffix = max_queue, flush_secs, filename_suffix

    def get_logdir(self) -> str:
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        self._writer.add_scalar(tag, _scalar(scalar_value), _scalar(global_step), walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each ``tag`` goes to its own run ``<log_dir>/<main_tag with '/' -> '_'>_<tag>``, as a
        scalar named ``main_tag`` (torch's layout; tensorboardX's own nests ``main_tag/tag``)."""
        for tag, value in tag_scalar_dict.items():
            run = os.path.join(self.log_dir, main_tag.replace("/", "_") + "_" + tag)
            sub = self._runs.get(run)
            if sub is None:
                sub = self._runs[run] = _base()(logdir=run, max_queue=self._max_queue,
                                                flush_secs=self._flush_secs,
                                                filename_suffix=self._filename_suffix)
            sub.add_scalar(main_tag, _scalar(value), _scalar(global_step), walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        self.add_histogram(tag, tensor, global_step, walltime=walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        self._writer.add_histogram(tag, _np(values), _scalar(global_step), bins, walltime, max_bins)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
                          global_step=None, walltime=None):
        self._writer.add_histogram_raw(tag, min, max, num, sum, sum_squares, _np(bucket_limits),
                                       _np(bucket_counts), _scalar(global_step), walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._writer.add_image(tag, _np(img_tensor), _scalar(global_step), walltime, dataformats)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        self._writer.add_images(tag, _np(img_tensor), _scalar(global_step), walltime, dataformats)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        self._writer.add_figure(tag, figure, _scalar(global_step), close, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._writer.add_text(tag, text_string, _scalar(global_step), walltime)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        self._writer.add_audio(tag, _np(snd_tensor), _scalar(global_step), sample_rate, walltime)

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default",
                      metadata_header=None):
        self._writer.add_embedding(_np(mat), metadata, _np(label_img), _scalar(global_step), tag,
                                   metadata_header)

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127,
                     weights=None, walltime=None):
        self._writer.add_pr_curve(tag, _np(labels), _np(predictions), _scalar(global_step),
                                  num_thresholds, _np(weights), walltime)

    def add_custom_scalars(self, layout):
        self._writer.add_custom_scalars(layout)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        """Log hyper-parameters with their metrics (a sub-run named ``run_name``, as torch does)."""
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        self._writer.add_hparams({k: _scalar(v) for k, v in hparam_dict.items()},
                                 {k: _scalar(v) for k, v in metric_dict.items()},
                                 name=run_name, global_step=_scalar(global_step))

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Record ``model``'s graph from an ``ember.fx`` symbolic trace."""
        from ...fx import symbolic_trace
        from ._graph import graph_def
        gm = symbolic_trace(model)
        if verbose:
            print(gm.graph)
        self._writer._get_file_writer().add_onnx_graph(graph_def(gm))

    def flush(self):
        self._writer.flush()
        for sub in self._runs.values():
            sub.flush()

    def close(self):
        self._writer.close()
        for sub in self._runs.values():
            sub.close()
        self._runs.clear()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()



