"""``benchmark submit``: build a submission folder from an evaluation run."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmark.cli import add_command


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "submit",
        description=(
            "Build a data-only submission folder: model.yaml from the options below and one outputs "
            "JSONL per task, copied from an evaluation run and re-serialised through the schema. The "
            "folder is validated before the command returns; open a pull request with it and the "
            "project scores it with the pinned judge profile."
        ),
        examples=[
            "benchmark submit --outputs outputs/Qwen__Qwen2.5-1.5B-Instruct --org Qwen --name Qwen2.5-1.5B-Instruct \\",
            "    --license apache-2.0 --parameters 1.5e9 --open-weights --contact you@example.org \\",
            "    --link https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct",
        ],
    )
    p.add_argument("--outputs", required=True, nargs="+", help="outputs JSONL files, or folders holding them")
    p.add_argument("--org", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--revision", default="main")
    p.add_argument("--license", required=True)
    p.add_argument("--parameters", type=parameter_count, help="parameter count (e.g. 1.5e9)")
    weights = p.add_mutually_exclusive_group(required=True)
    weights.add_argument("--open-weights", dest="open_weights", action="store_true")
    weights.add_argument("--closed-weights", dest="open_weights", action="store_false")
    p.add_argument("--contact", required=True, help="e-mail or GitHub handle")
    p.add_argument("--link", action="append", default=[], help="URL (repeatable)")
    p.add_argument("--description")
    p.add_argument("--submissions-dir", default="submissions")
    p.add_argument("--overwrite", action="store_true")
    p.set_defaults(func=run)


def parameter_count(text: str) -> int:
    """``1.5e9`` -> 1500000000; argparse turns the ValueError into a one-line error."""
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or value > 1e15:
        raise argparse.ArgumentTypeError(f"{text!r} is not a parameter count (a number from 0 to 1e15)")
    return int(value)


def run(args: argparse.Namespace) -> int:
    from benchmark.api.submission import create_submission

    relabelled: dict[str, int] = {}
    fields = ("name", "org", "revision", "license", "parameters", "open_weights", "contact", "description")
    dest, card, files = create_submission(
        list(map(Path, args.outputs)),
        Path(args.submissions_dir),
        card={**{name: getattr(args, name) for name in fields}, "links": args.link},
        overwrite=args.overwrite,
        relabelled=relabelled,
    )
    for origin, n in sorted(relabelled.items()):
        print(
            f"note: {n} row(s) written by {origin} are filed as {card.model_id}@{card.revision}; "
            "each keeps its origin in 'generated_by'"
        )
    print(f"wrote {dest} ({len(files)} task file(s)); validated. Open a pull request adding this folder.")
    return 0
