"""Writes the control API's OpenAPI document in its house layout: one path or schema per line.

Used as a module by scripts that edit Sources/FCMControl/Resources/openapi.json, so diffs stay one
line per operation: `from openapi_format import load, save`.
"""
import json

PATH = "Sources/FCMControl/Resources/openapi.json"


def _compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def load(path=PATH):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def save(doc, path=PATH):
    head = [f'"{key}":{_compact(value)}' for key, value in doc.items() if key not in ("paths", "components")]
    lines = ["{" + head[0] + ","] + [h + "," for h in head[1:]]
    lines.append('"paths":{')
    paths = [f"{_compact(name)}:{_compact(item)}" for name, item in doc["paths"].items()]
    lines += [p + "," for p in paths[:-1]] + [paths[-1]]
    lines.append('},"components":{"schemas":{')
    schemas = [f"{_compact(name)}:{_compact(item)}" for name, item in doc["components"]["schemas"].items()]
    lines += [s + "," for s in schemas[:-1]] + [schemas[-1]]
    lines.append("}}}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
