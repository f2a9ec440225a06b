"""Keeps the N most frequent tokens of a static embedder file (vocabulary is stored most
frequent first), to trade a little recall on rare words for a smaller package.
Usage: python3 trim_model.py IN_FILE OUT_FILE N
"""
import json
import struct
import sys

source, target, keep = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(source, "rb").read()
assert data[:8] == b"LOCISTAT"
header_length, vocabulary_length = struct.unpack("<II", data[8:16])
header = json.loads(data[16 : 16 + header_length])
vocabulary = data[16 + header_length : 16 + header_length + vocabulary_length].decode("utf-8").split("\n")
offset = 16 + header_length + vocabulary_length
offset += (4 - offset % 4) % 4
size, dimensions = header["vocabularySize"], header["dimensions"]
keep = min(keep, size)
scales = data[offset : offset + size * 4][: keep * 4]
query_weights = data[offset + size * 4 : offset + size * 8][: keep * 4]
document_weights = data[offset + size * 8 : offset + size * 12][: keep * 4]
rows = data[offset + size * 12 :][: keep * dimensions]
header["vocabularySize"] = keep
header_bytes = json.dumps(header).encode("utf-8")
vocabulary_bytes = "\n".join(vocabulary[:keep]).encode("utf-8")
with open(target, "wb") as out:
    out.write(b"LOCISTAT")
    out.write(struct.pack("<II", len(header_bytes), len(vocabulary_bytes)))
    out.write(header_bytes)
    out.write(vocabulary_bytes)
    out.write(b"\0" * ((4 - out.tell() % 4) % 4))
    out.write(scales + query_weights + document_weights + rows)
print(f"kept {keep} of {size} tokens")
