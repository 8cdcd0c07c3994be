"""Writes onnx's node tests, as the installed onnx makes them, into OUT/node for run_node_tests.py.

Usage:
    PY=$(scripts/install-python-env.sh) && "$PY" tests/differential/make_node_test_data.py OUT

onnx's wheels ship the backend test data of its model tests (onnx/backend/test/data: light, pytorch-converted,
pytorch-operator, real, simple) but not of its node tests, which onnx's source repository holds and its wheel
leaves out; the wheel ships their generators instead (onnx/backend/test/case/node/*.py: each test's node, its
inputs, and the outputs onnx's reference implementation computes). `python -m onnx.backend.test.cmd_tools
generate-data` writes only the model cases (its generate_data collects onnx.backend.test.case.model's cases and
has no option for the node ones), so this calls that same generate_data with the node cases put in their place:
OUT/node/<test>/model.onnx with its test_data_set_*/input_K.pb and output_K.pb, the layout of onnx's source tree
and of Debian's libonnx-testdata. onnx seeds numpy's random state (np.random.seed(0)) before each test's export
function, so two runs write the same bytes (checked: byte for byte). About 7 seconds and 27 MB with onnx 1.23.2.

Once per version: OUT/node-data-version names the onnx and numpy that wrote OUT/node (numpy computes the expected
outputs), written after the data is complete; when it names the running ones, nothing is done. Otherwise the stamp
and OUT/node go first, the data is written into OUT/.node.partial and renamed OUT/node, then the stamp is written:
a failed or killed run leaves no OUT/node, and no stale one. One writer per OUT at a time (ctest runs this as the
setup of onnx_node_tests).

Exit status: 0 when OUT/node is complete for the running onnx, 77 when this Python has no onnx or onnx has no
node test generators (ctest then reports the setup as skipped), 1 on any other error.
"""

import argparse
import os
import shutil
import sys

STAMP = "node-data-version"


def versions():
    """What the data depends on, as the stamp records it: onnx (the generators) and numpy (the outputs)."""
    import numpy
    import onnx
    return f"onnx {onnx.__version__}, numpy {numpy.__version__}\n"


def up_to_date(out, wanted):
    stamp = os.path.join(out, STAMP)
    if not (os.path.isfile(stamp) and os.path.isdir(os.path.join(out, "node"))):
        return False
    with open(stamp) as f:
        return f.read() == wanted


def generate(out):
    """OUT/node from onnx's node test generators, through OUT/.node.partial."""
    import onnx.backend.test.case.node as node_cases
    from onnx.backend.test import cmd_tools

    partial = os.path.join(out, ".node.partial")
    shutil.rmtree(partial, ignore_errors=True)  # a killed run's
    # generate_data collects its cases through cmd_tools.model_test.collect_testcases; the node cases' collector
    # gives TestCase(kind="node", ...) alike, which generate_data writes under OUTPUT/node/<name>.
    cmd_tools.model_test.collect_testcases = node_cases.collect_testcases
    cmd_tools.generate_data(argparse.Namespace(output=partial))
    os.rename(os.path.join(partial, "node"), os.path.join(out, "node"))
    os.rmdir(partial)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="the folder to write node/ and its version stamp into (the build folder's)")
    args = parser.parse_args()
    try:
        import onnx.backend.test.case.node  # noqa: F401 (the generators this needs)
    except ImportError as e:
        print(f"make_node_test_data: {sys.executable} cannot import onnx's node test generators ({e}): skipped")
        return 77
    wanted = versions()
    if up_to_date(args.out, wanted):
        print(f"make_node_test_data: {args.out}/node is up to date ({wanted.strip()})")
        return 0
    os.makedirs(args.out, exist_ok=True)
    stamp = os.path.join(args.out, STAMP)
    if os.path.exists(stamp):
        os.remove(stamp)  # first: until the new data is whole, no stamp vouches for what is there
    shutil.rmtree(os.path.join(args.out, "node"), ignore_errors=True)  # another onnx's, or a failed run's
    generate(args.out)
    with open(stamp, "w") as f:
        f.write(wanted)
    tests = len(os.listdir(os.path.join(args.out, "node")))
    print(f"make_node_test_data: wrote {tests} node tests into {args.out}/node ({wanted.strip()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
