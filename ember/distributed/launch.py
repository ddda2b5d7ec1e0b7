"""``python -m ember.distributed.launch``: torch's deprecated launcher, on ``ember.distributed.run``.

It takes torchrun's flags plus ``--use-env``; without it each rank's script also receives
``--local-rank=N`` as its first argument, as torch.distributed.launch does.

Example::

    python -m ember.distributed.launch --nproc-per-node 2 train.py     # train.py gets --local-rank=0/1
"""
from __future__ import annotations

import sys
import warnings

from .run import config_from_args, get_args_parser, launch

__all__ = ["parse_args", "launch", "main"]


def parse_args(args=None):
    parser = get_args_parser()
    parser.add_argument("--use-env", "--use_env", default=False, action="store_true",
                        help="read the local rank from LOCAL_RANK instead of a --local-rank argument")
    return parser.parse_args(args)


def main(args=None) -> None:
    warnings.warn("The module torch.distributed.launch is deprecated\nand will be removed in future. Use torchrun.\n"
                  "Note that --use-env is set by default in torchrun.\nIf your script expects `--local-rank` "
                  "argument to be set, please\nchange it to read from `os.environ['LOCAL_RANK']` instead.",
                  FutureWarning, stacklevel=2)
    parsed = parse_args(args)
    try:
        cfg = config_from_args(parsed)
    except ValueError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    extra = None if parsed.use_env else (lambda local_rank: [f"--local-rank={local_rank}"])
    sys.exit(launch(cfg, extra))


if __name__ == "__main__":
    main()
