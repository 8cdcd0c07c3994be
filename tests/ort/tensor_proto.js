'use strict';
// A minimal, hand-written protobuf codec for onnx.TensorProto (onnx.proto, proto2 syntax).
//
// Decoding reads the fields a dense tensor can use: dims (1, packed or not), data_type (2), float_data (4),
// int32_data (5), string_data (6), int64_data (7), name (8), raw_data (9), double_data (10), uint64_data (11).
// Anything else (segment, external data, doc_string, metadata) is rejected or skipped: see decodeTensorProto.
//
// Encoding always writes the same canonical form, in field-number order, exactly as protobuf itself
// serializes a message holding these fields:
//   dims (1, one unpacked varint per dim, as proto2 does), data_type (2), string_data (6, strings only),
//   name (8, when non-empty), raw_data (9, every non-string type, even when empty).
// onnx.numpy_helper.from_array(array, name).SerializeToString() gives the same bytes for the same tensor, so
// two outputs that are equal as tensors are equal as files.

// ONNX TensorProto.DataType -> how ORT (onnxruntime-node) names it and how many bytes an element takes.
const DATA_TYPES = {
  1: { name: 'FLOAT', ort: 'float32', size: 4, array: Float32Array },
  2: { name: 'UINT8', ort: 'uint8', size: 1, array: Uint8Array },
  3: { name: 'INT8', ort: 'int8', size: 1, array: Int8Array },
  4: { name: 'UINT16', ort: 'uint16', size: 2, array: Uint16Array },
  5: { name: 'INT16', ort: 'int16', size: 2, array: Int16Array },
  6: { name: 'INT32', ort: 'int32', size: 4, array: Int32Array },
  7: { name: 'INT64', ort: 'int64', size: 8, array: BigInt64Array },
  8: { name: 'STRING', ort: 'string', size: 0, array: null },
  9: { name: 'BOOL', ort: 'bool', size: 1, array: Uint8Array },
  // float16 is carried as its raw IEEE half bits; onnxruntime-common accepts a Uint16Array for it.
  10: { name: 'FLOAT16', ort: 'float16', size: 2, array: Uint16Array },
  11: { name: 'DOUBLE', ort: 'float64', size: 8, array: Float64Array },
  12: { name: 'UINT32', ort: 'uint32', size: 4, array: Uint32Array },
  13: { name: 'UINT64', ort: 'uint64', size: 8, array: BigUint64Array },
};
const ORT_TO_DATA_TYPE = Object.fromEntries(Object.entries(DATA_TYPES).map(([k, v]) => [v.ort, Number(k)]));

class Reader {
  constructor(buf) { this.buf = buf; this.pos = 0; }
  eof() { return this.pos >= this.buf.length; }
  varint() { // as an unsigned BigInt
    let result = 0n; let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw new Error('varint too long');
    }
    return result;
  }
  bytes() {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) throw new Error('truncated length-delimited field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wire) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
    if (this.pos > this.buf.length) throw new Error('truncated field');
  }
}

const asInt64 = (u) => BigInt.asIntN(64, u);

// Reads a repeated varint field that may be packed (wire 2) or not (wire 0); pushes BigInts.
function readVarints(r, wire, out) {
  if (wire === 0) { out.push(r.varint()); return; }
  if (wire !== 2) throw new Error(`bad wire type ${wire} for a varint field`);
  const sub = new Reader(r.bytes());
  while (!sub.eof()) out.push(sub.varint());
}

// Reads a repeated fixed-size field (wire 5: 4 bytes, wire 1: 8 bytes), packed or not; pushes raw byte chunks.
function readFixed(r, wire, size, out) {
  const expected = size === 4 ? 5 : 1;
  if (wire === expected) {
    if (r.pos + size > r.buf.length) throw new Error('truncated fixed field');
    out.push(r.buf.subarray(r.pos, r.pos + size)); r.pos += size; return;
  }
  if (wire !== 2) throw new Error(`bad wire type ${wire} for a fixed field`);
  const b = r.bytes();
  if (b.length % size) throw new Error('packed fixed field of odd length');
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
}

// Decodes a serialized TensorProto into { name, dataType, dims: number[], raw: Buffer|null, strings: Buffer[]|null }.
// For every non-string type, `raw` holds the little-endian element bytes whichever field carried them.
function decodeTensorProto(buf) {
  const r = new Reader(buf);
  const dims = []; const strings = [];
  let dataType = 0; let name = ''; let raw = null;
  const varints = { 5: [], 7: [], 11: [] }; // int32_data, int64_data, uint64_data
  const fixed = { 4: [], 10: [] }; // float_data, double_data
  while (!r.eof()) {
    const key = Number(r.varint());
    const field = key >>> 3; const wire = key & 7;
    switch (field) {
      case 1: { const d = []; readVarints(r, wire, d); for (const v of d) dims.push(Number(asInt64(v))); break; }
      case 2: dataType = Number(r.varint()); break;
      case 3: throw new Error('TensorProto.segment is not supported');
      case 4: readFixed(r, wire, 4, fixed[4]); break;
      case 5: case 7: case 11: readVarints(r, wire, varints[field]); break;
      case 6: strings.push(Buffer.from(r.bytes())); break;
      case 8: name = Buffer.from(r.bytes()).toString('utf8'); break;
      case 9: raw = Buffer.from(r.bytes()); break;
      case 10: readFixed(r, wire, 8, fixed[10]); break;
      case 13: throw new Error('TensorProto with external data is not supported');
      case 14: if (Number(r.varint()) !== 0) throw new Error('TensorProto with external data is not supported'); break;
      default: r.skip(wire); // doc_string (12), metadata_props (16), unknown fields
    }
  }
  const info = DATA_TYPES[dataType];
  if (!info) throw new Error(`unsupported TensorProto data_type ${dataType}`);
  const count = dims.reduce((a, b) => a * b, 1);
  if (dims.some((d) => d < 0)) throw new Error(`negative dim in ${JSON.stringify(dims)}`);
  if (dataType === 8) {
    if (strings.length !== count) throw new Error(`string tensor '${name}' has ${strings.length} values for ${count} elements`);
    return { name, dataType, dims, raw: null, strings };
  }
  if (raw === null) { // typed field: convert to little-endian raw bytes
    const out = Buffer.alloc(count * info.size);
    let n = 0;
    if (dataType === 1) { n = fixed[4].length; fixed[4].forEach((c, i) => c.copy(out, i * 4)); }
    else if (dataType === 11) { n = fixed[10].length; fixed[10].forEach((c, i) => c.copy(out, i * 8)); }
    else if (dataType === 7) { n = varints[7].length; varints[7].forEach((v, i) => out.writeBigInt64LE(asInt64(v), i * 8)); }
    else if (dataType === 12 || dataType === 13) {
      n = varints[11].length;
      varints[11].forEach((v, i) => (info.size === 8 ? out.writeBigUInt64LE(v, i * 8) : out.writeUInt32LE(Number(v), i * 4)));
    } else { // int32_data carries int32, int16, int8, uint16, uint8, bool and float16 (as bits)
      n = varints[5].length;
      varints[5].forEach((v, i) => {
        const x = Number(BigInt.asIntN(32, v));
        if (info.size === 4) out.writeInt32LE(x, i * 4);
        else if (info.size === 2) out.writeUInt16LE(x & 0xffff, i * 2);
        else out.writeUInt8(x & 0xff, i);
      });
    }
    if (n !== count) throw new Error(`tensor '${name}' has ${n} values for ${count} elements`);
    raw = out;
  }
  if (raw.length !== count * info.size) {
    throw new Error(`tensor '${name}': raw_data holds ${raw.length} bytes, dims ${JSON.stringify(dims)} need ${count * info.size}`);
  }
  return { name, dataType, dims, raw, strings: null };
}

function encodeVarint(value, out) {
  let v = BigInt.asUintN(64, BigInt(value));
  do {
    let b = Number(v & 0x7fn); v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
}

function encodeBytesField(field, bytes, chunks) {
  const head = []; encodeVarint((field << 3) | 2, head); encodeVarint(bytes.length, head);
  chunks.push(Buffer.from(head), Buffer.from(bytes));
}

// Encodes { name, dataType, dims, raw | strings } in the canonical form described at the top of this file.
function encodeTensorProto(t) {
  const chunks = [];
  const head = [];
  for (const d of t.dims) { encodeVarint((1 << 3) | 0, head); encodeVarint(d, head); }
  encodeVarint((2 << 3) | 0, head); encodeVarint(t.dataType, head);
  chunks.push(Buffer.from(head));
  if (t.dataType === 8) for (const s of t.strings) encodeBytesField(6, s, chunks);
  if (t.name) encodeBytesField(8, Buffer.from(t.name, 'utf8'), chunks);
  if (t.dataType !== 8) encodeBytesField(9, t.raw, chunks);
  return Buffer.concat(chunks);
}

// Decoded tensor -> onnxruntime-common Tensor.
function toOrtTensor(ort, t) {
  const info = DATA_TYPES[t.dataType];
  if (t.dataType === 8) return new ort.Tensor('string', t.strings.map((s) => s.toString('utf8')), t.dims);
  const ab = new ArrayBuffer(t.raw.length); // copy: typed arrays need an aligned buffer of their own
  new Uint8Array(ab).set(t.raw);
  return new ort.Tensor(info.ort, new info.array(ab), t.dims);
}

// onnxruntime-common Tensor -> decoded form ready for encodeTensorProto.
function fromOrtTensor(name, tensor) {
  const dataType = ORT_TO_DATA_TYPE[tensor.type];
  if (!dataType) throw new Error(`output '${name}' has unsupported ORT type ${tensor.type}`);
  const dims = Array.from(tensor.dims, Number);
  if (dataType === 8) return { name, dataType, dims, raw: null, strings: tensor.data.map((s) => Buffer.from(s, 'utf8')) };
  const d = tensor.data; // any typed array (Uint8Array for bool, Uint16Array or Float16Array for float16)
  return { name, dataType, dims, raw: Buffer.from(d.buffer, d.byteOffset, d.byteLength), strings: null };
}

module.exports = { DATA_TYPES, decodeTensorProto, encodeTensorProto, toOrtTensor, fromOrtTensor };
