"""Runs examples/digits_cnn.py's train() for --max-steps steps (imported from
the examples folder, unchanged) and then prints a digest of the trained
weights, so a test can compare losses and weights with and without tvis.
    gradcam_digits.py --max-steps N
"""
import argparse
import importlib.util
import os

from fidelity_util import digest


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--max-steps", type=int, default=3)
    args = p.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "..", "examples", "digits_cnn.py")
    spec = importlib.util.spec_from_file_location("digits_cnn", path)
    digits = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(digits)
    model = digits.train(argparse.Namespace(epochs=1, batch_size=32, lr=1e-3, seed=0, max_steps=args.max_steps))
    print("weights %s" % digest(model), flush=True)


if __name__ == "__main__":
    main()
