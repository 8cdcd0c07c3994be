#!/usr/bin/env node
'use strict';
// Self-check of tensor_proto.js: every TensorProto file under the given folders (ONNX's conformance data, e.g.
// build/tests/onnx_node_data/node, which ctest's onnx_node_test_data writes with onnx 1.23) must decode and re-encode
// to the very same bytes. Files the codec does not handle (bfloat16, complex, sequences, maps, optionals) are counted
// as skipped.
// Usage: node check_codec.js FOLDER ...
const fs = require('fs');
const path = require('path');
const { decodeTensorProto, encodeTensorProto } = require('./tensor_proto');

if (process.argv.length <= 2) {
  console.error('usage: node check_codec.js FOLDER ...');
  process.exit(2);
}
const roots = process.argv.slice(2);
let passed = 0; let failed = 0; let skipped = 0;
function walk(p) {
  const st = fs.statSync(p);
  if (st.isDirectory()) { for (const f of fs.readdirSync(p).sort()) walk(path.join(p, f)); return; }
  if (!p.endsWith('.pb')) return;
  const bytes = fs.readFileSync(p);
  let t;
  try { t = decodeTensorProto(bytes); } catch (e) { skipped++; return; }
  if (encodeTensorProto(t).equals(bytes)) passed++;
  else { failed++; console.log(`FAIL ${p}`); }
}
for (const r of roots) {
  if (!fs.existsSync(r)) { console.error(`check_codec: no ${r}`); process.exit(2); }
  walk(r);
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
