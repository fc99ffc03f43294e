"""OpenAPI ingestion (documents → tools, quarantine) and the HTTP backend (over a mock transport)."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest

from stores.catalog.model import DESTRUCTIVE_KEY, IDEMPOTENCY_PARAM, Catalog, CatalogError
from stores.catalog.openapi import HTTP_BINDING_KEY, load_openapi_catalog
from stores.execution.executor import ToolExecutor
from stores.execution.http import HttpBackend
from stores.execution.policy import approval_needed, declared_destructive
from stores.secrets import SECRETS


def petshop(**extra: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Pet Shop", "version": "1"},
        "servers": [{"url": "https://pets.example/v1"}],
        "paths": {
            "/pets": {
                "post": {
                    "operationId": "addPet",
                    "summary": "Add a pet",
                    "parameters": [{"name": "Idempotency-Key", "in": "header",
                                    "schema": {"type": "string"}}],
                    "requestBody": {"required": True, "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Pet"}}}},
                    "responses": {"200": {"description": "ok"}},
                },
                "get": {
                    "operationId": "findPets",
                    "summary": "Find pets by tags",
                    "parameters": [
                        {"name": "tags", "in": "query", "schema": {
                            "type": "array", "items": {"type": "string"}}},
                        {"name": "limit", "in": "query", "schema": {
                            "type": "integer", "format": "int32", "nullable": True}},
                    ],
                    "responses": {"200": {"description": "ok"}},
                },
            },
            "/pets/{petId}": {
                "parameters": [{"name": "petId", "in": "path", "required": True,
                                "schema": {"type": "string"}}],
                "get": {"summary": "Get a pet", "responses": {"200": {"description": "ok"}}},
                "delete": {"operationId": "deletePet", "summary": "Delete a pet",
                           "responses": {"204": {"description": "gone"}}},
                "put": {
                    "operationId": "replacePet",
                    "summary": "Replace a pet",
                    "requestBody": {"content": {"application/json": {"schema": {
                        "type": "array", "items": {"type": "string"}}}}},
                    "responses": {"200": {"description": "ok"}},
                },
            },
        },
        "components": {"schemas": {"Pet": {
            "type": "object", "required": ["name"],
            "properties": {
                "id": {"type": "integer", "readOnly": True},
                "name": {"type": "string"},
                "status": {"type": "string", "enum": ["available", "sold"]},
                "owner": {"type": "object", "properties": {"email": {
                    "type": "string", "format": "email"}}},
            }}}},
    }
    document.update(extra)
    return document


def load(document: dict[str, Any], **options: Any) -> tuple[Catalog, Any]:
    return load_openapi_catalog(document, **options)


def test_operations_become_tools_with_one_schema_and_a_binding() -> None:
    catalog, report = load(petshop())
    assert report.tools == 5 and not report.quarantined
    assert report.agent == "pet-shop" and report.base_url == "https://pets.example/v1"
    add = catalog.tools["pet-shop/addPet"]
    assert add.side_effect is True and add.description == "Add a pet"
    # The body is flattened; readOnly properties are not sent; the header becomes the key.
    assert set(add.input_schema["properties"]) == {"name", "status", "owner", IDEMPOTENCY_PARAM}
    assert add.input_schema["required"] == ["name"]
    assert add.input_schema["properties"]["owner"]["properties"]["email"]["format"] == "email"
    assert add.accepts_idempotency_key()
    binding = add.annotations[HTTP_BINDING_KEY]
    assert binding["idempotency_header"] == "Idempotency-Key"
    assert binding["body"] == {"mode": "flat", "content_type": "application/json",
                               "fields": ["name", "status", "owner"]}
    find = catalog.tools["pet-shop/findPets"]
    assert find.side_effect is False
    assert find.input_schema["properties"]["limit"]["type"] == ["integer", "null"]
    # No operationId: method + path, slugified; path-level parameters inherited.
    get = catalog.tools["pet-shop/get_pets_petid"]
    assert get.input_schema["required"] == ["petId"]
    # A body that is not an object is one 'body' argument.
    replace = catalog.tools["pet-shop/replacePet"]
    assert replace.annotations[HTTP_BINDING_KEY]["body"]["mode"] == "whole"
    assert replace.input_schema["properties"]["body"]["type"] == "array"
    # DELETE is destructive whatever its name; the gate holds it even with no pattern.
    delete = catalog.tools["pet-shop/deletePet"]
    assert delete.annotations[DESTRUCTIVE_KEY] is True and declared_destructive(delete)
    assert approval_needed(delete.id, [], declared=declared_destructive(delete))
    assert not approval_needed(replace.id, [], declared=declared_destructive(replace))


def test_bad_operations_are_quarantined_with_reasons_and_the_rest_loads() -> None:
    document = petshop()
    paths = document["paths"]
    paths["/broken"] = {"get": {"operationId": "broken", "responses": {"200": {
        "description": "ok", "content": {"application/json": {"schema": {
            "$ref": "#/components/schemas/Nope"}}}}}}}
    paths["/noschema"] = {"get": {"operationId": "noSchema", "parameters": [
        {"name": "x", "in": "query"}], "responses": {"200": {"description": "ok"}}}}
    paths["/dup1"] = {"get": {"operationId": "twice", "responses": {"200": {"description": "x"}}}}
    paths["/dup2"] = {"get": {"operationId": "twice", "responses": {"200": {"description": "x"}}}}
    paths["/upload"] = {"post": {"operationId": "upload", "requestBody": {"content": {
        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
        "responses": {"200": {"description": "ok"}}}}
    paths["/usesbad"] = {"post": {"operationId": "usesBad", "requestBody": {"content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/Bad"}}}},
        "responses": {"200": {"description": "ok"}}}}
    document["components"]["schemas"]["Bad"] = {"type": "object", "properties": {
        "a": {"$ref": "#/components/schemas/Missing"}}}
    catalog, report = load(document)
    assert report.tools == 5
    reasons = {entry.tool: entry.reason for entry in report.quarantined}
    assert set(reasons) == {"broken", "noSchema", "twice", "upload", "usesBad"}
    assert "#/components/schemas/Nope" in reasons["broken"]
    assert "schema" in reasons["noSchema"]
    assert "GET /dup1" in reasons["twice"] and "GET /dup2" in reasons["twice"]
    assert "application/octet-stream" in reasons["upload"]
    assert "Missing" in reasons["usesBad"]
    assert len(catalog.quarantined) == 6  # both operations named 'twice'
    with pytest.raises(CatalogError, match="not an OpenAPI"):
        load({"info": {}, "paths": {}})


def test_swagger_2_and_openapi_3_1_documents() -> None:
    swagger = {
        "swagger": "2.0",
        "info": {"title": "Old Store", "version": "1"},
        "host": "store.example", "basePath": "/api", "schemes": ["https"],
        "securityDefinitions": {"key": {"type": "apiKey", "in": "query", "name": "api_key"}},
        "security": [{"key": []}],
        "paths": {
            "/orders": {"post": {
                "operationId": "placeOrder",
                "parameters": [{"name": "order", "in": "body", "required": True,
                                "schema": {"$ref": "#/definitions/Order"}}],
                "responses": {"200": {"description": "ok"}}}},
            "/orders/{id}": {"get": {
                "operationId": "getOrder",
                "parameters": [{"name": "id", "in": "path", "required": True,
                                "type": "integer", "format": "int64"}],
                "responses": {"200": {"description": "ok",
                                      "schema": {"$ref": "#/definitions/Order"}}}}},
        },
        "definitions": {"Order": {"type": "object", "required": ["quantity"], "properties": {
            "quantity": {"type": "integer", "minimum": 1},
            "note": {"type": "string", "x-nullable": True}}}},
    }
    catalog, report = load(swagger)
    assert report.tools == 2 and report.base_url == "https://store.example/api"
    place = catalog.tools["old-store/placeOrder"]
    assert place.input_schema["required"] == ["quantity"]
    auth = place.annotations[HTTP_BINDING_KEY]["auth"]
    assert auth == [[{"scheme": "key", "type": "apiKey", "in": "query", "name": "api_key",
                      "env": "ZSPACE_SECRET_OLD_STORE_KEY"}]]
    get = catalog.tools["old-store/getOrder"]
    assert get.input_schema["properties"]["id"] == {"type": "integer", "format": "int64"}
    assert get.output_schema is not None and "quantity" in get.output_schema["properties"]

    modern = petshop(openapi="3.1.0")
    modern["components"]["schemas"]["Pet"]["properties"]["status"] = {
        "type": ["string", "null"], "enum": ["available", "sold", None]}
    catalog, report = load(modern, agent="pets31", base_url="http://localhost:9", credentials={})
    assert report.tools == 5 and report.base_url == "http://localhost:9"
    status = catalog.tools["pets31/addPet"].input_schema["properties"]["status"]
    assert status["type"] == ["string", "null"]


# ---------------------------------------------------------------------- the HTTP backend
class Recorder:
    """A mock transport: records requests, answers from a script of (status, body)."""

    def __init__(self, *answers: tuple[int, Any]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        status, body = self.answers.pop(0) if self.answers else (200, {"ok": True})
        if body is None:
            return httpx.Response(status)
        return httpx.Response(status, json=body)


def executor_for(recorder: Recorder, environ: dict[str, str] | None = None) -> ToolExecutor:
    document = petshop(
        security=[{"bearer": []}],
        components={**petshop()["components"], "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"}}},
    )
    catalog, _ = load(document, environment="test")
    executor = ToolExecutor(catalog, backoff_s=0.0, allowed_environments=["test"])
    executor.http_backend = HttpBackend(
        environ=environ if environ is not None else {"ZSPACE_SECRET_PET_SHOP_BEARER":
                                                     "tok-9f8e7d6c5b4a"},
        transport=httpx.MockTransport(recorder),
    )
    return executor


async def test_requests_are_built_from_the_arguments_with_credentials_by_reference() -> None:
    recorder = Recorder((200, {"id": 7, "name": "Rex"}), (200, [{"id": 7}]), (204, None))
    executor = executor_for(recorder)
    added = await executor.execute({
        "call_id": "c1", "tool_id": "pet-shop/addPet", "run_id": "r1",
        "args": {"name": "Rex", "owner": {"email": "a@b.example"}}})
    assert added["status"] == "ok" and added["output"] == {"id": 7, "name": "Rex"}
    sent = recorder.requests[0]
    assert sent.method == "POST" and str(sent.url) == "https://pets.example/v1/pets"
    assert json.loads(sent.content) == {"name": "Rex", "owner": {"email": "a@b.example"}}
    assert sent.headers["Authorization"] == "Bearer tok-9f8e7d6c5b4a"
    assert sent.headers["Idempotency-Key"]  # the executor's key, sent as the declared header
    found = await executor.execute({"call_id": "c2", "tool_id": "pet-shop/findPets",
                                    "args": {"tags": ["a b", "c"], "limit": 2}})
    assert found["output"] == [{"id": 7}]
    assert recorder.requests[1].url.params.get_list("tags") == ["a b", "c"]
    got = await executor.execute({"call_id": "c3", "tool_id": "pet-shop/get_pets_petid",
                                  "args": {"petId": "a/b c"}})
    assert got["output"] == {"status": 204}
    assert recorder.requests[2].url.raw_path == b"/v1/pets/a%2Fb%20c"
    assert "tok-9f8e7d6c5b4a" in SECRETS


async def test_http_errors_become_call_failures_and_only_idempotent_calls_are_retried() -> None:
    recorder = Recorder((503, {"message": "busy"}), (503, {"message": "busy"}), (200, []))
    executor = executor_for(recorder)
    found = await executor.execute({"call_id": "c1", "tool_id": "pet-shop/findPets", "args": {}})
    assert found["status"] == "ok" and found["attempts"] == 3

    recorder = Recorder((404, {"message": "no pet 9"}))
    executor = executor_for(recorder)
    missing = await executor.execute({"call_id": "c2", "tool_id": "pet-shop/get_pets_petid",
                                      "args": {"petId": "9"}})
    assert missing["error_kind"] == "permanent" and missing["attempts"] == 1
    assert "HTTP 404" in str(missing["error"]) and "no pet 9" in str(missing["error"])

    # PUT is idempotent: retried although it writes.
    recorder = Recorder((502, None), (200, {"ok": True}))
    executor = executor_for(recorder)
    replaced = await executor.execute({"call_id": "c3", "tool_id": "pet-shop/replacePet",
                                       "args": {"petId": "1", "body": ["x"]}})
    assert replaced["status"] == "ok" and replaced["attempts"] == 2

    # POST is retried only because it sends an Idempotency-Key: the same key both times.
    recorder = Recorder((500, None), (200, {"id": 1}))
    executor = executor_for(recorder)
    added = await executor.execute({"call_id": "c4", "tool_id": "pet-shop/addPet",
                                    "run_id": "r2", "args": {"name": "Rex"}})
    assert added["status"] == "ok" and added["attempts"] == 2
    keys = {request.headers["Idempotency-Key"] for request in recorder.requests}
    assert len(keys) == 1

    # Without the header the POST is not repeated: its outcome is unknown.
    document = petshop()
    del document["paths"]["/pets"]["post"]["parameters"]
    catalog, _ = load(document, environment="test")
    recorder = Recorder((500, None), (200, {"id": 1}))
    executor = ToolExecutor(catalog, backoff_s=0.0)
    executor.http_backend = HttpBackend(transport=httpx.MockTransport(recorder))
    once = await executor.execute({"call_id": "c5", "tool_id": "pet-shop/addPet",
                                   "run_id": "r3", "args": {"name": "Rex"}})
    assert once["error_kind"] == "unknown_outcome" and len(recorder.requests) == 1


async def test_missing_credentials_and_missing_server_are_named() -> None:
    recorder = Recorder()
    executor = executor_for(recorder, environ={})
    result = await executor.execute({"call_id": "c1", "tool_id": "pet-shop/findPets",
                                     "args": {}})
    assert result["status"] == "error" and "ZSPACE_SECRET_PET_SHOP_BEARER" in result["error"]
    assert not recorder.requests
    document = copy.deepcopy(petshop())
    del document["servers"]
    catalog, report = load(document)
    assert "give --base-url" in str(report)
    executor = ToolExecutor(catalog)
    result = await executor.execute({"call_id": "c2", "tool_id": "pet-shop/findPets",
                                     "args": {}})
    assert "--base-url" in str(result["error"])


async def test_a_call_started_before_a_crash_is_repeated_only_when_its_method_is_idempotent(
) -> None:
    from stores.execution.ledger.calls import CallLedger, canonical_args_hash

    document = petshop()
    del document["paths"]["/pets"]["post"]["parameters"]  # no Idempotency-Key header
    catalog, _ = load(document, environment="test")
    ledger = CallLedger(":memory:")
    recorder = Recorder((200, {"ok": True}), (200, {"ok": True}))
    executor = ToolExecutor(catalog, ledger=ledger)
    executor.http_backend = HttpBackend(transport=httpx.MockTransport(recorder))
    put = {"call_id": "c1", "tool_id": "pet-shop/replacePet", "run_id": "r",
           "idempotency_key": "K-put", "args": {"petId": "1", "body": ["x"]}}
    post = {"call_id": "c2", "tool_id": "pet-shop/addPet", "run_id": "r",
            "idempotency_key": "K-post", "args": {"name": "Rex"}}
    for planned in (put, post):
        ledger.begin(planned["idempotency_key"], "r", planned["call_id"],
                     planned["tool_id"], canonical_args_hash(planned["args"]))
    repeated = await executor.execute(put)
    assert repeated["status"] == "ok" and len(recorder.requests) == 1
    held = await executor.execute(post)
    assert held["error_kind"] == "unknown_outcome" and len(recorder.requests) == 1
