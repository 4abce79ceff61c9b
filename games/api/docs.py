"""A readable documentation page for the API, rendered on the server from the
same OpenAPI schema as /api/schema/: every endpoint, its parameters and every
field of its answer. The site serves it itself (no CDN)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from drf_spectacular.generators import SchemaGenerator

METHODS = ("get", "post", "put", "patch", "delete")


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return "object"
    if "allOf" in schema:
        return _type(schema["allOf"][0])
    kind = schema.get("type", "object")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if "enum" in schema:
        return " | ".join(str(v) for v in schema["enum"] if v is not None)
    fmt = schema.get("format")
    text = f"{kind} ({fmt})" if fmt else str(kind)
    return f"{text} or null" if schema.get("nullable") else text


def _fields(
    schema: dict[str, Any], components: dict[str, Any], prefix: str = "", depth: int = 0
) -> list[dict[str, str]]:
    """Flatten an object schema into dotted field rows."""
    if "allOf" in schema:
        schema = schema["allOf"][0]
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    if schema.get("type") == "array":
        return _fields(schema.get("items", {}), components, f"{prefix}[]", depth)
    rows: list[dict[str, str]] = []
    for name, field in schema.get("properties", {}).items():
        path = f"{prefix}.{name}" if prefix else name
        resolved = field
        if "allOf" in field:
            resolved = field["allOf"][0]
        rows.append({
            "name": path,
            "type": _type(field),
            "description": field.get("description", "")
            or components.get(resolved.get("$ref", "").rsplit("/", 1)[-1], {}).get(
                "description", ""
            ),
        })
        if depth < 4:
            target = resolved.get("items", resolved) if resolved.get("type") == "array" else resolved
            if "$ref" in target or target.get("properties"):
                suffix = "[]" if resolved.get("type") == "array" else ""
                rows += _fields(target, components, f"{path}{suffix}", depth + 1)
    return rows


def endpoints(schema: dict[str, Any]) -> list[dict[str, Any]]:
    components = schema.get("components", {}).get("schemas", {})
    found = []
    for path, operations in schema.get("paths", {}).items():
        for method in METHODS:
            operation = operations.get(method)
            if operation is None:
                continue
            ok = operation.get("responses", {}).get("200", {})
            body = ok.get("content", {}).get("application/json", {}).get("schema", {})
            found.append({
                "path": path,
                "method": method.upper(),
                "summary": operation.get("summary", ""),
                "description": operation.get("description", ""),
                "parameters": [
                    {
                        "name": p["name"],
                        "in": p["in"],
                        "type": _type(p.get("schema", {})),
                        "description": p.get("description", ""),
                    }
                    for p in operation.get("parameters", [])
                ],
                "fields": _fields(body, components) if body else [],
                "anchor": f"{method}-{path}".replace("/", "-").strip("-"),
            })
    return found


@require_GET
def api_docs(request: HttpRequest) -> HttpResponse:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return render(request, "games/history/api_docs.html", {
        "info": schema["info"], "endpoints": endpoints(schema),
    })
