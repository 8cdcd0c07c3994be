'use strict';
// The ONNX Runtime (onnxruntime-node) session options of every script that runs models in it: the differential
// tests' oracle (tests/ort/run_model.js) and the benchmark's timer (bench/ort_time.js, which requires this file
// by its path). CPU only, one inter-op thread, nodes run in sequence, ORT's own log quiet (its errors are
// reported by the caller); the graph optimization level and the intra-op threads are each caller's.
//
// disablePrepacking: ORT pre-packs a Gemm/MatMul weight only when it is a constant initializer, and the packed
// kernel can round differently, by an ulp; the oracle turns it off so that a result does not depend on whether a
// weight is a constant (an IR-3 model and the same model at IR >= 4, where an initializer listed in graph.input
// is no longer one). The benchmark times ORT as it runs by default, pre-packing included.

/**
 * @param {{optimization: string, threads: number, disablePrepacking?: boolean}} options
 * @returns {object} the options for ort.InferenceSession.create
 */
function sessionOptions({ optimization, threads, disablePrepacking = false }) {
  const options = {
    executionProviders: ['cpu'],
    graphOptimizationLevel: optimization,
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3,
  };
  if (disablePrepacking) options.extra = { 'session.disable_prepacking': '1' };
  return options;
}

module.exports = { sessionOptions };
