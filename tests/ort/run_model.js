#!/usr/bin/env node
'use strict';
// Runs an ONNX model in ONNX Runtime (onnxruntime-node, CPU) on inputs stored as TensorProto files and writes every
// output as a TensorProto file, so that two runs can be compared byte for byte.
//
// Usage:
//   node run_model.js MODEL INPUT_DIR OUTPUT_DIR [--optimization=disabled|basic|extended|all] [--threads=N]
//   node run_model.js --list MODEL        prints {"inputs": [...], "outputs": [...]} as ORT sees them
//
// Input folder: every *.pb file in it but output_*.pb is one serialized onnx.TensorProto (the layout of ONNX's own
// test_data_set_N folders, e.g. input_0.pb, input_1.pb ...). The TensorProto's `name` field names the graph
// input it feeds; a tensor without a name feeds the input at position K of ORT's input list when its file is
// called input_K.pb. Other files are ignored. Types: every dense type ORT's Node API has (float, double,
// float16, int8..int64, uint8..uint64, bool, string); raw_data or the typed *_data fields.
//
// Output folder (created if missing): output_K.pb for the K-th model output, in ORT's output order (the graph's
// output order), a TensorProto named after the output and written in one canonical form (see tensor_proto.js).
//
// Defaults: graph optimizations disabled, weight pre-packing disabled and one intra-op thread, so that the kernels
// that run are the nodes of the model as written (an oracle, not a tuned runtime) and results depend neither on
// thread scheduling nor on whether a weight is a constant. (Pre-packing matters: ORT pre-packs a Gemm/MatMul weight
// only when it is a constant initializer, and the packed kernel can round differently, by an ulp, so an IR-3 model
// and the same model at IR >= 4, where an initializer listed in graph.input is no longer a constant, would differ.)
//
// Exit status: 0 on success; 1 when ORT refuses the model or fails to run it (its message is on stderr);
// 2 on a usage or file-format error.

const fs = require('fs');
const path = require('path');
const { sessionOptions } = require('./session_options');
const { decodeTensorProto, encodeTensorProto, toOrtTensor, fromOrtTensor } = require('./tensor_proto');

function usage(msg) {
  if (msg) process.stderr.write(`run_model: ${msg}\n`);
  process.stderr.write('usage: node run_model.js MODEL INPUT_DIR OUTPUT_DIR [--optimization=disabled|basic|extended|all] [--threads=N]\n'
    + '       node run_model.js --list MODEL\n');
  process.exit(2);
}

function loadOrt() {
  try {
    return require('onnxruntime-node');
  } catch (e) {
    process.stderr.write(`run_model: cannot load onnxruntime-node (run tests/ort/install.sh first): ${e.message}\n`);
    process.exit(2);
  }
}

async function main(argv) {
  const positional = []; const opts = { optimization: 'disabled', threads: 1, list: false };
  for (const a of argv) {
    if (a === '--list') opts.list = true;
    else if (a.startsWith('--optimization=')) opts.optimization = a.slice(15);
    else if (a.startsWith('--threads=')) opts.threads = Number(a.slice(10));
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else positional.push(a);
  }
  if (!['disabled', 'basic', 'extended', 'all'].includes(opts.optimization)) usage(`bad --optimization=${opts.optimization}`);
  if (!(Number.isInteger(opts.threads) && opts.threads >= 0)) usage('bad --threads');
  if (opts.list ? positional.length !== 1 : positional.length !== 3) usage();
  const [modelPath, inputDir, outputDir] = positional;

  const ort = loadOrt();
  ort.env.logLevel = 'error';
  let session;
  try {
    session = await ort.InferenceSession.create(
      modelPath,
      sessionOptions({ optimization: opts.optimization, threads: opts.threads, disablePrepacking: true }),
    );
  } catch (e) {
    process.stderr.write(`run_model: ORT refused ${modelPath}: ${e.message}\n`);
    return 1;
  }
  if (opts.list) {
    process.stdout.write(`${JSON.stringify({ inputs: session.inputNames, outputs: session.outputNames })}\n`);
    return 0;
  }

  const feeds = {};
  let files;
  try {
    files = fs.readdirSync(inputDir).filter((f) => f.endsWith('.pb') && !f.startsWith('output_')).sort();
  } catch (e) {
    usage(`cannot read input folder ${inputDir}: ${e.message}`);
  }
  for (const f of files) {
    let t;
    try {
      t = decodeTensorProto(fs.readFileSync(path.join(inputDir, f)));
    } catch (e) {
      usage(`${path.join(inputDir, f)}: ${e.message}`);
    }
    let name = t.name;
    if (!name) {
      const m = /^input_(\d+)\.pb$/.exec(f);
      if (!m || Number(m[1]) >= session.inputNames.length) usage(`${f}: tensor has no name and its file name gives no input position`);
      name = session.inputNames[Number(m[1])];
    }
    if (!session.inputNames.includes(name)) usage(`${f}: '${name}' is not an input of the model (inputs: ${session.inputNames.join(', ')})`);
    if (name in feeds) usage(`${f}: input '${name}' given twice`);
    feeds[name] = toOrtTensor(ort, t);
  }

  let results;
  try {
    results = await session.run(feeds);
  } catch (e) {
    process.stderr.write(`run_model: ORT failed to run ${modelPath}: ${e.message}\n`);
    return 1;
  }
  fs.mkdirSync(outputDir, { recursive: true });
  for (const f of fs.readdirSync(outputDir)) if (/^output_\d+\.pb$/.test(f)) fs.unlinkSync(path.join(outputDir, f));
  session.outputNames.forEach((name, k) => {
    const value = results[name];
    if (!value || !(value instanceof ort.Tensor)) throw new Error(`output '${name}' is not a tensor`);
    fs.writeFileSync(path.join(outputDir, `output_${k}.pb`), encodeTensorProto(fromOrtTensor(name, value)));
  });
  await session.release();
  return 0;
}

main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
  process.stderr.write(`run_model: ${e.stack || e}\n`);
  process.exit(2);
});
