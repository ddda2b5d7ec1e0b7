"""Which ``torch.*`` functions and ``Tensor`` methods ember still lacks.

Compares ember with the lists of torch's public names kept in ``tools/torch_api/`` (written once from
torch by ``tools/make_torch_api.py``), so torch need not be installed. Names tied to a backend or
feature ember does not model (cuDNN, MKL-DNN, sparse layouts, TorchScript, autocast
internals) are counted apart as out of scope.

Usage: ``python tools/api_coverage.py [--quiet]`` prints counts, then the missing names.
"""
from __future__ import annotations

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

import ember  # noqa: E402

OUT_OF_SCOPE = re.compile(
    r"^(cudnn_|miopen_|mkldnn_|fbgemm_|sparse_|.*_sparse|smm$|hsmm$|dsmm$|saddmm$|spmm$|"
    r"hspmm$|sspaddmm$|ccol_indices|col_indices|crow_indices|row_indices|indices_copy|values_copy|"
    r".*autocast|import_ir|parse_ir|parse_schema|parse_type_comment|merge_type_from|"
    r"unify_type_list|is_vulkan|fork$|wait$|compiled_with_cxx11|profiler_|get_file_path|"
    r"prepare_multiprocessing|from_file|classproperty|is_distributed|"
    r"hash_tensor|segment_reduce|batch_norm_(backward|elemt|gather|stats|update)|"
    r"native_|to_mkldnn|to_sparse|to_padded|is_coalesced|coalesce|dense_dim|sparse_dim|"
    r"_?indices$|values$|to_dense|ccol|crow|col_indices|"
    r"row_indices|pin_memory|is_pinned|ipu|xpu|hpu|mtia|cuda|mps|xla|vulkan|ipu|map2_|map_|"
    r"apply_|storage_type|share_memory_|is_shared|untyped_storage|module_load|smm$|sspaddmm)")


def names(path: pathlib.Path) -> list:
    return [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]


def report(title: str, wanted: list, have) -> tuple:
    scope = [n for n in wanted if not OUT_OF_SCOPE.match(n)]
    missing = [n for n in scope if not have(n)]
    print(f"{title}: {len(scope) - len(missing)}/{len(scope)} present "
          f"({len(wanted) - len(scope)} more out of scope), {len(missing)} missing")
    return missing


def main(argv=()) -> int:
    quiet = "--quiet" in argv
    fm = report("torch.* functions", names(ROOT / "torch_api" / "functions.txt"),
                lambda n: hasattr(ember, n))
    mm = report("Tensor methods", names(ROOT / "torch_api" / "tensor_methods.txt"),
                lambda n: hasattr(ember.Tensor, n))
    if not quiet:
        for title, miss in (("missing torch.* functions", fm), ("missing Tensor methods", mm)):
            print(f"\n{title} ({len(miss)}):")
            print("  " + " ".join(miss))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
