#!/usr/bin/env python3
"""Check an attestation `dwpipe attest` wrote without dwpipe: in-toto's reference library
(securesystemslib) verifies every DSSE envelope under the public key, each payload is read
as an in-toto Statement v1, and dwpipe's verdict predicate is validated against its JSON
Schema. Prints one JSON object per statement; exits 1 when anything does not hold.

    python3 verify.py PUBLIC.pem FILE.intoto.jsonl [SCHEMA.json]

Needs `pip install 'securesystemslib[crypto]' jsonschema` (jsonschema only with a schema).
"""

import json
import sys

from cryptography.hazmat.primitives.serialization import load_pem_public_key
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey

STATEMENT = "https://in-toto.io/Statement/v1"
VERDICT = "https://dwpipe.dev/verdict/v1"


def main(public_pem, attestation, schema_path=None):
    with open(public_pem, "rb") as f:
        # The default key id is the one dwpipe writes: the signature is found under it.
        key = SSlibKey.from_crypto(load_pem_public_key(f.read()))
    schema = None
    if schema_path:
        import jsonschema

        with open(schema_path, encoding="utf-8") as f:
            schema = json.load(f)
    with open(attestation, encoding="utf-8") as f:
        lines = [line for line in f if line.strip()]
    for number, line in enumerate(lines, 1):
        envelope = Envelope.from_dict(json.loads(line))
        envelope.verify([key], 1)
        statement = json.loads(envelope.payload)
        if statement.get("_type") != STATEMENT:
            raise SystemExit(f"line {number}: not an in-toto Statement v1")
        predicate = statement["predicate"]
        if schema is not None and statement["predicateType"] == VERDICT:
            jsonschema.validate(predicate, schema)
        print(
            json.dumps(
                {
                    "line": number,
                    "keyid": key.keyid,
                    "predicateType": statement["predicateType"],
                    "subject": statement["subject"],
                    "result": predicate.get("verificationResult", predicate.get("release")),
                }
            )
        )


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
