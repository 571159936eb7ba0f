import { describe, expect, it } from "vitest";
import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { authenticated, permission, publicAccess, signedOut } from "./access.js";
import { buildOpenApiDocument } from "./openapi.js";
import { type AnyRoute, routesOf } from "./route.js";

/** Routes of no services: these tests call no handler that needs one. */
const route = routesOf<unknown>();

type Operation = {
  parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  security?: unknown[];
};

function operation(routes: readonly AnyRoute[], path: string, method: string): Operation {
  const document = buildOpenApiDocument(routes, { origin: "https://kith.test", version: "1.2.3" });
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const found = paths[path]?.[method];
  if (!found) throw new Error(`No operation ${method} ${path}`);
  return found;
}

describe("the OpenAPI document", () => {
  it("declares a path parameter from the params schema", () => {
    const routes = [
      route({
        method: "GET",
        path: "/api/v1/things/{thingId}",
        summary: "One thing",
        access: publicAccess,
        params: z.object({ thingId: z.string().describe("The thing's id") }),
        handler: () => null,
      }),
    ];
    const [parameter] = operation(routes, "/api/v1/things/{thingId}", "get").parameters;
    expect(parameter).toMatchObject({
      name: "thingId",
      in: "path",
      required: true,
      description: "The thing's id",
      schema: { type: "string" },
    });
  });

  it("declares a path parameter of a route that has no params schema", () => {
    const routes = [
      route({ method: "GET", path: "/api/v1/events/{eventId}.ics", summary: "Calendar", access: publicAccess, handler: () => "" }),
    ];
    const parameters = operation(routes, "/api/v1/events/{eventId}.ics", "get").parameters;
    expect(parameters).toEqual([expect.objectContaining({ name: "eventId", in: "path", required: true, schema: { type: "string" } })]);
  });

  it("declares query parameters, required only when the schema requires them", () => {
    const routes = [
      route({
        method: "GET",
        path: "/api/v1/search",
        summary: "Search",
        access: publicAccess,
        query: z.object({ q: z.string(), limit: z.number().optional() }),
        handler: () => [],
      }),
    ];
    const parameters = operation(routes, "/api/v1/search", "get").parameters;
    expect(parameters).toEqual([
      expect.objectContaining({ name: "q", in: "query", required: true }),
      expect.objectContaining({ name: "limit", in: "query", required: false }),
    ]);
  });

  it("describes the body in every content type the parser accepts", () => {
    const routes = [
      route({
        method: "POST",
        path: "/api/v1/things",
        summary: "Make",
        access: authenticated,
        body: z.object({ name: z.string() }),
        handler: () => null,
      }),
    ];
    const content = operation(routes, "/api/v1/things", "post").requestBody?.content ?? {};
    expect(Object.keys(content).sort()).toEqual(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]);
    expect(content["application/json"]?.schema).toMatchObject({ type: "object", properties: { name: { type: "string" } } });
  });

  it("declares 401 for routes that need credentials and not for public ones", () => {
    const routes = [
      route({ method: "GET", path: "/a", summary: "a", access: authenticated, handler: () => null }),
      route({ method: "GET", path: "/b", summary: "b", access: permission(any("Reports.Read")), handler: () => null }),
      route({ method: "GET", path: "/c", summary: "c", access: publicAccess, handler: () => null }),
      route({ method: "GET", path: "/d", summary: "d", access: signedOut, handler: () => null }),
    ];
    expect(operation(routes, "/a", "get").responses["401"]).toBeDefined();
    expect(operation(routes, "/b", "get").responses["401"]).toBeDefined();
    expect(operation(routes, "/b", "get").responses["403"]).toBeDefined();
    expect(operation(routes, "/c", "get").responses["401"]).toBeUndefined();
    expect(operation(routes, "/d", "get").responses["401"]).toBeUndefined();
    expect(operation(routes, "/d", "get").responses["403"]).toBeDefined();
  });

  it("asks for a bearer token with the route's scopes on non-public routes", () => {
    const routes = [
      route({ method: "GET", path: "/a", summary: "a", access: authenticated, scopes: ["read:accounts"], handler: () => null }),
      route({ method: "GET", path: "/c", summary: "c", access: publicAccess, handler: () => null }),
    ];
    expect(operation(routes, "/a", "get").security).toEqual([{ bearer: ["read:accounts"] }]);
    expect(operation(routes, "/c", "get").security).toBeUndefined();
  });

  it("uses the route's status and response schema for success", () => {
    const routes = [
      route({
        method: "POST",
        path: "/a",
        summary: "a",
        access: publicAccess,
        status: 201,
        response: z.object({ id: z.string() }),
        handler: () => ({ id: "x" }),
      }),
    ];
    const success = operation(routes, "/a", "post").responses["201"];
    expect(success?.content?.["application/json"]?.schema).toMatchObject({ type: "object", properties: { id: { type: "string" } } });
  });
});
