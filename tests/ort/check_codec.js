#!/usr/bin/env node
'use strict';
// Self-check of tensor_proto.js: every TensorProto file under the given folders (default: ONNX's conformance data
// from Debian's libonnx-testdata) must decode and re-encode to the very same bytes. Files the codec does not handle
// (bfloat16, complex, sequences, maps, optionals) are counted as skipped.
// Usage: node check_codec.js [FOLDER ...]
const fs = require('fs');
const path = require('path');
const { decodeTensorProto, encodeTensorProto } = require('./tensor_proto');

const roots = process.argv.length > 2 ? process.argv.slice(2) : ['/usr/share/libonnx-testdata/data/node'];
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
