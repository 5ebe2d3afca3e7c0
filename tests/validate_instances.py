"""Validates JSON instances against the schemas of openapi.yaml's components (JSON Schema
2020-12, the dialect of OpenAPI 3.1).

Run by tests/api/contract.rs with the path of openapi.yaml and of a JSON file holding
`[{"schema": "GameResponse", "where": "...", "instance": ...}, ...]`. Every instance must
validate; and, so that a schema that allows anything cannot pass, each instance marked
`"spoil": true` must fail once its game data is spoiled (a view, an action or an options
object of the wrong shape). Prints a count per schema; exits 1 on any failure.

A union with a `discriminator` is checked as OpenAPI tools read it: the instance against
the one model its discriminating property names (each of those models fixes that property
with a `const`, so no other branch could match). Checking every branch, as plain JSON
Schema does for a `oneOf`, validated each view against all seven games' view models:
eight times slower, for the same answer.
"""

import copy
import json
import sys
from collections import Counter

import jsonschema_rs
import yaml

spec_path, instances_path = sys.argv[1], sys.argv[2]
with open(spec_path) as f:
    doc = yaml.safe_load(f)
registry = jsonschema_rs.Registry([("urn:openapi", doc)])
validators = {}


def model(name, instance):
    """The component `instance` is checked against: through the discriminator, if any."""
    schema = doc["components"]["schemas"].get(name, {})
    d = schema.get("discriminator")
    if d and isinstance(instance, dict) and instance.get(d["propertyName"]) in d["mapping"]:
        return d["mapping"][instance[d["propertyName"]]].rsplit("/", 1)[1]
    return name


def validator(name):
    if name not in validators:
        validators[name] = jsonschema_rs.Draft202012Validator(
            {"$ref": f"urn:openapi#/components/schemas/{name}"}, registry=registry
        )
    return validators[name]


def spoiled(schema, instance):
    """The instance with its game data changed into something no game's model allows."""
    bad = copy.deepcopy(instance)
    if schema == "GameResponse":
        if bad.get("view") is not None:
            bad["view"] = {"spoiled": True}
        elif bad.get("legal_actions"):
            bad["legal_actions"][0] = {"type": "no_such_action"}
        else:
            bad["options"] = {"no_such_option": 1}
    elif schema == "LogEntry":
        bad["action"] = {"type": "no_such_action"}
    elif schema in ("ViewAtResponse", "PreviewResponse"):
        bad["view"] = {"spoiled": True}
    return bad


with open(instances_path) as f:
    instances = json.load(f)
# Many answers repeat (the same log entry read by each seat): each is checked once.
checks = {}
for item in instances:
    schema, where, instance = item["schema"], item["where"], item["instance"]
    key = (schema, json.dumps(instance, sort_keys=True))
    spoil = item.get("spoil", False) or key in checks and checks[key][3]
    checks[key] = (schema, where, instance, spoil)

counts = Counter()
failures = []
for schema, where, instance, spoil in checks.values():
    v = validator(model(schema, instance))
    errors = sorted(v.iter_errors(instance), key=lambda e: len(e.instance_path))
    counts[schema] += 1
    if errors:
        e = errors[0]
        failures.append(
            f"{where}: not a valid {schema}: {e.message[:300]} at {list(e.instance_path)}"
        )
    if spoil and v.is_valid(spoiled(schema, instance)):
        failures.append(f"{where}: a spoiled {schema} still validates: the schema is too loose")
for schema, n in sorted(counts.items()):
    print(f"{schema}: {n} distinct instances")
for line in failures[:40]:
    print("FAIL", line)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
