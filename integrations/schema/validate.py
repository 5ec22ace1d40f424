#!/usr/bin/env python3
"""Validate documents dwpipe wrote against the JSON Schemas in docs/schema/, with a JSON
Schema validator that is not dwpipe (the `jsonschema` package: what a user's CI would run).
Each argument names a schema and a document; a JSON Lines file (an attestation) is given as
NAME=FILE:LINE:POINTER to validate one line's value at a JSON pointer. Prints one line per
document; exits 1 when any does not validate.

    python3 validate.py docs/schema audit=out/audit-1.json lab=lab/lab.json \
        dwpipe-verdict-v1=out/audit-1.intoto.jsonl:2:/predicate

Needs `pip install jsonschema` (`bash .ci/attest-deps` installs it into target/attest-venv).
"""

import base64
import json
import os
import sys

import jsonschema


def document(spec):
    """The value a FILE or FILE:LINE:POINTER names (an envelope's payload is decoded)."""
    path, _, rest = spec.partition(":")
    if not rest:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    line, _, pointer = rest.partition(":")
    with open(path, encoding="utf-8") as f:
        value = json.loads([l for l in f if l.strip()][int(line) - 1])
    if "payload" in value:
        value = json.loads(base64.b64decode(value["payload"]))
    for part in [p for p in pointer.split("/") if p]:
        value = value[part]
    return value


def main(folder, pairs):
    failed = 0
    for pair in pairs:
        name, _, spec = pair.partition("=")
        with open(os.path.join(folder, name + ".schema.json"), encoding="utf-8") as f:
            schema = json.load(f)
        validator = jsonschema.validators.validator_for(schema)(schema)
        errors = sorted(validator.iter_errors(document(spec)), key=lambda e: list(e.path))
        if errors:
            failed += 1
            for error in errors[:5]:
                where = "/".join(str(p) for p in error.absolute_path) or "(root)"
                print(f"INVALID {name} {spec}: at {where}: {error.message[:300]}")
        else:
            print(f"valid {name} {spec}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
