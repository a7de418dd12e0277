"""The scenario JSON Schema (for editors) accepts every scenario the project ships, and refuses a
typo, so the schema and the runner's parser stay in step."""
import glob
import json
import os

import jsonschema
import pytest
import yaml

ROOT = os.path.join(os.path.dirname(__file__), "..", "scenarios")
SCHEMA = json.load(open(os.path.join(ROOT, "scenario.schema.json")))


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "*.yaml"))))
def test_shipped_scenarios_validate(path):
    jsonschema.validate(yaml.safe_load(open(path)), SCHEMA)


def test_a_typo_is_refused():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"steps": [{"sned": {}}]}, SCHEMA)
