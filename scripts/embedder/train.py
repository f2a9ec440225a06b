"""Trains loci's offline static embedder: every token has a vector and a learned
importance; a text's embedding is the importance-weighted sum of its tokens' vectors,
L2-normalised. Trained contrastively (symmetric InfoNCE, in-batch negatives) on the
pairs from prepare-training-data.mjs. Exports int8 rows (importance folded in) with a
per-row scale, in the format src/embed/static/static-model.ts reads.

Usage: python3 train.py DATA_DIR OUT_FILE [--dimensions 256] [--epochs 5]
Needs torch (pip install torch; a CPU wheel suffices). Deterministic for a given seed.
"""
import argparse
import json
import math
import random
import struct
import time

import torch
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("data_dir")
parser.add_argument("out_file")
parser.add_argument("--dimensions", type=int, default=256)
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--batch", type=int, default=1024)
parser.add_argument("--wordnet-per-epoch", type=int, default=80_000)
parser.add_argument("--learning-rate", type=float, default=0.003)
parser.add_argument("--seed", type=int, default=13)
parser.add_argument("--asymmetric", action="store_true", help="separate token importance for queries and documents")
args = parser.parse_args()

random.seed(args.seed)
torch.manual_seed(args.seed)
torch.set_num_threads(2)

vocabulary = [line.split("\t")[0] for line in open(f"{args.data_dir}/vocabulary.tsv", encoding="utf-8").read().splitlines() if line]
pairs = [json.loads(line) for line in open(f"{args.data_dir}/pairs.jsonl", encoding="utf-8") if line.strip()]
wordnet = [pair for pair in pairs if pair["s"].startswith("wordnet")]
others = [pair for pair in pairs if not pair["s"].startswith("wordnet")]
random.shuffle(others)
held_out, others = others[:2000], others[2000:]
print(f"vocabulary {len(vocabulary)}, pairs {len(others)} (+{len(wordnet)} wordnet), held out {len(held_out)}", flush=True)

size = len(vocabulary)
vectors = torch.nn.EmbeddingBag(size, args.dimensions, mode="sum", sparse=True)
torch.nn.init.normal_(vectors.weight, std=0.1)
importance = torch.nn.Embedding(size, 1, sparse=True)
torch.nn.init.constant_(importance.weight, 1.0)
# Queries and documents weigh words differently ("python" in every code query says little).
query_importance = torch.nn.Embedding(size, 1, sparse=True) if args.asymmetric else importance
if args.asymmetric:
    torch.nn.init.constant_(query_importance.weight, 1.0)
log_temperature = torch.nn.Parameter(torch.tensor(math.log(0.05)))
sparse_parameters = list(vectors.parameters()) + list(importance.parameters()) + (list(query_importance.parameters()) if args.asymmetric else [])
sparse_optimizer = torch.optim.SparseAdam(sparse_parameters, lr=args.learning_rate)
dense_optimizer = torch.optim.Adam([log_temperature], lr=args.learning_rate)


def embed(token_lists, side="document"):
    flat = torch.tensor([token for tokens in token_lists for token in tokens], dtype=torch.long)
    offsets = torch.tensor([0] + [len(tokens) for tokens in token_lists[:-1]], dtype=torch.long).cumsum(0)
    table = query_importance if side == "query" else importance
    weights = F.softplus(table(flat).squeeze(1))
    return F.normalize(vectors(flat, offsets, per_sample_weights=weights), dim=1)


def held_out_recall():
    with torch.no_grad():
        queries = embed([pair["q"] for pair in held_out], "query")
        documents = embed([pair["d"] for pair in held_out])
        ranks = (queries @ documents.T).argsort(dim=1, descending=True)
        target = torch.arange(len(held_out)).unsqueeze(1)
        return (ranks[:, :10] == target).any(dim=1).float().mean().item()


print(f"held-out recall@10 before training: {held_out_recall():.3f}", flush=True)
for epoch in range(args.epochs):
    epoch_pairs = others + random.sample(wordnet, min(len(wordnet), args.wordnet_per_epoch))
    random.shuffle(epoch_pairs)
    started, total = time.time(), 0.0
    for start in range(0, len(epoch_pairs) - args.batch + 1, args.batch):
        batch = epoch_pairs[start : start + args.batch]
        queries = embed([pair["q"] for pair in batch], "query")
        documents = embed([pair["d"] for pair in batch])
        logits = queries @ documents.T / log_temperature.exp().clamp(min=0.01)
        labels = torch.arange(len(batch))
        loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
        sparse_optimizer.zero_grad()
        dense_optimizer.zero_grad()
        loss.backward()
        sparse_optimizer.step()
        dense_optimizer.step()
        total += loss.item()
    steps = max(1, len(epoch_pairs) // args.batch)
    print(f"epoch {epoch + 1}: loss {total / steps:.3f}, temperature {log_temperature.exp().item():.3f}, held-out recall@10 {held_out_recall():.3f}, {time.time() - started:.0f}s", flush=True)

# Export: int8 rows with a per-row scale; token importance as float32 per side.
with torch.no_grad():
    rows = vectors.weight
    scales = rows.abs().max(dim=1).values.clamp(min=1e-12) / 127.0
    quantized = torch.round(rows / scales.unsqueeze(1)).clamp(-127, 127).to(torch.int8)
    document_weights = F.softplus(importance.weight).squeeze(1)
    query_weights = F.softplus(query_importance.weight).squeeze(1)

header = json.dumps({
    "format": "loci-static-embedder",
    "version": 2,
    "dimensions": args.dimensions,
    "vocabularySize": size,
    "tokenizer": "loci-tokenize-v1",
    "quantization": "int8-rowwise",
}).encode("utf-8")
vocabulary_bytes = "\n".join(vocabulary).encode("utf-8")
with open(args.out_file, "wb") as out:
    out.write(b"LOCISTAT")
    out.write(struct.pack("<II", len(header), len(vocabulary_bytes)))
    out.write(header)
    out.write(vocabulary_bytes)
    padding = (4 - (out.tell() % 4)) % 4
    out.write(b"\0" * padding)
    out.write(scales.to(torch.float32).numpy().tobytes())
    out.write(query_weights.to(torch.float32).numpy().tobytes())
    out.write(document_weights.to(torch.float32).numpy().tobytes())
    out.write(quantized.numpy().tobytes())
print(f"wrote {args.out_file}", flush=True)
