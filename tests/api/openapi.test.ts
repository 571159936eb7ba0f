import { afterAll, beforeAll, expect, it } from "vitest";
import { type AnyRoute, requiresCredentials } from "@kith/core";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { routeTable } from "../../packages/core/src/modules/default-modules.js";

type Schema = Record<string, unknown>;
interface Operation {
  operationId: string;
  summary: string;
  parameters: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: Schema }> }>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const cases = (routes: readonly AnyRoute[]) => routes.map((route) => [`${route.method} ${route.path}`, route] as const);

describeOnEngines("the API reference", (engine) => {
  let kith: TestKith;
  let document: OpenApiDocument;
  const operationOf = (route: AnyRoute): Operation | undefined => document.paths[route.path]?.[route.method.toLowerCase()];

  beforeAll(async () => {
    kith = await engine.testKith();
    const response = await kith.request("GET", "/api/v1/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    document = await response.json();
  });
  afterAll(() => kith.close());

  it("is an OpenAPI 3.1 document with info, paths and the error schema", () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info).toMatchObject({ title: expect.any(String), version: kith.config.version });
    expect(typeof document.paths).toBe("object");
    expect(document.components.schemas.Error).toMatchObject({ type: "object", required: ["error", "code"] });
  });

  it("has unique operation ids", () => {
    const ids = Object.values(document.paths).flatMap((operations) => Object.values(operations).map((operation) => operation.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("has no operation that is not in the route table", () => {
    const declared = new Set(routeTable.map((route) => `${route.method.toLowerCase()} ${route.path}`));
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    );
    expect(documented.filter((operation) => !declared.has(operation))).toEqual([]);
  });

  it.each(cases(routeTable))("documents %s under its path and method, with its summary and a success response", (_, route) => {
    const operation = operationOf(route);
    expect(operation?.summary).toBe(route.summary);
    expect(operation?.responses[String(route.status ?? 200)]).toBeDefined();
  });

  it.each(cases(routeTable))("declares every path parameter of %s", (_, route) => {
    const expected = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name).sort();
    const declared = (operationOf(route)?.parameters ?? []).filter((parameter) => parameter.in === "path");
    expect(declared.map((parameter) => parameter.name).sort()).toEqual(expected);
    for (const parameter of declared) expect(parameter.required).toBe(true);
  });

  it.each(cases(routeTable.filter((route) => route.body)))("gives %s a request body schema", (_, route) => {
    const content = operationOf(route)?.requestBody?.content ?? {};
    expect(content["application/json"]?.schema).toEqual(expect.any(Object));
    expect(content["application/x-www-form-urlencoded"]?.schema).toEqual(expect.any(Object));
  });

  it.each(cases(routeTable.filter((route) => route.response)))("gives %s a response schema", (_, route) => {
    const success = operationOf(route)?.responses[String(route.status ?? 200)];
    const schema = success?.content?.[route.produces ?? "application/json"]?.schema;
    expect(schema).toEqual(expect.any(Object));
    expect(Object.keys(schema ?? {}).length).toBeGreaterThan(0);
  });

  it.each(cases(routeTable.filter((route) => requiresCredentials(route.access))))("declares 401 for %s", (_, route) => {
    expect(operationOf(route)?.responses["401"]?.content?.["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/Error" });
  });

  it.each(cases(routeTable.filter((route) => route.access.kind === "permission")))("declares 403 for %s", (_, route) => {
    expect(operationOf(route)?.responses["403"]).toBeDefined();
  });

  it("GET /api/v1/docs is an HTML page mentioning every path", async () => {
    const response = await kith.request("GET", "/api/v1/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>/i);
    const missing = [...new Set(routeTable.map((route) => route.path))].filter((path) => !html.includes(`<code>${path}</code>`));
    expect(missing).toEqual([]);
  });
});
