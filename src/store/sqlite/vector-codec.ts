/** Vectors are stored as little-endian float32 blobs. */
export function encodeVector(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A view of the blob when it is 4-byte aligned, else a copy (for a blob read once, in a scan). */
export function viewVector(blob: Uint8Array, dimensions: number): Float32Array {
  return blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, dimensions) : new Float32Array(Uint8Array.from(blob.subarray(0, dimensions * 4)).buffer);
}

/** Copies, because a Buffer from SQLite may not be 4-byte aligned. */
export function decodeVector(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}
