#!/usr/bin/env node
'use strict';
// Times ONNX Runtime (onnxruntime-node, CPU, tests/ort/node_modules) running models, for the benchmark's scenario 6
// (bench/bench_driver.cc): the same inferences the opset move's proof runs in the model runner, so that the two
// times compare.
//
// Usage:
//   node ort_time.js --shape=D0,D1,... [--runs=N] [--optimization=disabled|basic|extended|all] [--threads=T] MODEL...
//
// Every MODEL takes one float input of --shape (the first of ORT's inputs), filled from a fixed sequence with
// values in [-1, 1). Sessions are created first, untimed (the proof's time does not include loading the model
// either); then each model runs N times (default 1), and the wall time of those runs alone is printed as one
// JSON line: {"seconds": S, "inferences": N * models}. One intra-op thread by default: the model runner runs on
// one. Exit 0 on success, 1 when ORT refuses or fails a model, 2 on a usage error.

const path = require('path');

// The session options the differential tests' oracle uses too (tests/ort/session_options.js).
const { sessionOptions } = require(path.join(__dirname, '..', 'tests', 'ort', 'session_options.js'));

function usage(msg) {
  if (msg) process.stderr.write(`ort_time: ${msg}\n`);
  process.stderr.write('usage: node ort_time.js --shape=D0,D1,... [--runs=N] '
    + '[--optimization=disabled|basic|extended|all] [--threads=T] MODEL...\n');
  process.exit(2);
}

function loadOrt() {
  const ortDir = path.join(__dirname, '..', 'tests', 'ort', 'node_modules', 'onnxruntime-node');
  try {
    return require(ortDir);
  } catch (e) {
    process.stderr.write(`ort_time: cannot load ${ortDir} (run tests/ort/install.sh first): ${e.message}\n`);
    process.exit(2);
  }
  return null;
}

// Values in [-1, 1) from a 32-bit xorshift: the same input every run, no NaN, no subnormal.
function fill(count) {
  const values = new Float32Array(count);
  let state = 0x2545f491;
  for (let i = 0; i < count; i += 1) {
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    values[i] = (state / 4294967296) * 2 - 1;
  }
  return values;
}

async function main(argv) {
  const opts = { shape: null, runs: 1, optimization: 'all', threads: 1 };
  const models = [];
  for (const a of argv) {
    if (a.startsWith('--shape=')) opts.shape = a.slice(8).split(',').map(Number);
    else if (a.startsWith('--runs=')) opts.runs = Number(a.slice(7));
    else if (a.startsWith('--optimization=')) opts.optimization = a.slice(15);
    else if (a.startsWith('--threads=')) opts.threads = Number(a.slice(10));
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else models.push(a);
  }
  if (!opts.shape || !opts.shape.every((d) => Number.isInteger(d) && d > 0)) usage('--shape needs positive dims');
  if (!(Number.isInteger(opts.runs) && opts.runs >= 1)) usage('--runs must be a positive integer');
  if (!(Number.isInteger(opts.threads) && opts.threads >= 1)) usage('--threads must be a positive integer');
  if (!['disabled', 'basic', 'extended', 'all'].includes(opts.optimization)) usage(`bad --optimization=${opts.optimization}`);
  if (models.length === 0) usage('no model given');

  const ort = loadOrt();
  ort.env.logLevel = 'error';
  const count = opts.shape.reduce((a, b) => a * b, 1);
  const input = new ort.Tensor('float32', fill(count), opts.shape);
  const sessions = [];
  for (const model of models) {
    try {
      sessions.push(await ort.InferenceSession.create(
        model,
        sessionOptions({ optimization: opts.optimization, threads: opts.threads }),
      ));
    } catch (e) {
      process.stderr.write(`ort_time: ORT refused ${model}: ${e.message}\n`);
      return 1;
    }
  }
  const start = process.hrtime.bigint();
  for (let s = 0; s < sessions.length; s += 1) {
    for (let r = 0; r < opts.runs; r += 1) {
      try {
        await sessions[s].run({ [sessions[s].inputNames[0]]: input });
      } catch (e) {
        process.stderr.write(`ort_time: ORT failed to run ${models[s]}: ${e.message}\n`);
        return 1;
      }
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  for (const session of sessions) await session.release();
  process.stdout.write(`${JSON.stringify({ seconds, inferences: opts.runs * sessions.length })}\n`);
  return 0;
}

main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
  process.stderr.write(`ort_time: ${e.stack || e}\n`);
  process.exit(2);
});
