import { z } from "zod";
import { errorCatalog } from "../../domain/error-catalog.js";
import { describeAccess, requiresCredentials } from "./access.js";
import type { AnyRoute } from "./route.js";

type JsonSchema = Record<string, unknown>;

function toSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** The fields of an object schema as OpenAPI parameters. */
function parametersOf(schema: z.ZodType | undefined, location: "path" | "query"): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema, "input");
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === "path" || required.has(name),
    ...(typeof property.description === "string" && { description: property.description }),
    schema: property,
  }));
}

/**
 * Every `{name}` of the path as a parameter: OpenAPI requires each one declared,
 * and a route may leave its path parameters unvalidated (no params schema).
 */
function pathParametersOf(route: AnyRoute): JsonSchema[] {
  const declared = new Map(parametersOf(route.params, "path").map((parameter) => [parameter.name as string, parameter]));
  return [...route.path.matchAll(/\{(\w+)\}/g)].map(
    ([, name = ""]) => declared.get(name) ?? { name, in: "path", required: true, schema: { type: "string" } },
  );
}

function tagOf(route: AnyRoute): string {
  if (route.tags?.[0]) return route.tags[0];
  const segments = route.path.split("/").filter(Boolean);
  const start = segments[0] === "api" ? 2 : 0;
  const first = segments[start] ?? "root";
  return first === "admin" ? `admin/${segments[start + 1] ?? ""}` : first;
}

const errorSchema: JsonSchema = {
  type: "object",
  required: ["error", "code"],
  properties: {
    error: { type: "string", description: "A message for people" },
    code: { type: "string", enum: Object.keys(errorCatalog), description: "A stable code, <area>.<reason>" },
    details: {
      type: "array",
      items: {
        type: "object",
        properties: { field: { type: "string" }, message: { type: "string" }, code: { type: "string" } },
        required: ["message"],
      },
    },
  },
};

function errorResponses(route: AnyRoute): Record<string, JsonSchema> {
  const ref = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  const responses: Record<string, JsonSchema> = {
    "400": { description: "Malformed request", ...ref },
    "422": { description: "Invalid values", ...ref },
  };
  if (route.path.includes("{")) responses["404"] = { description: "Not found, or not visible to the caller", ...ref };
  if (requiresCredentials(route.access)) responses["401"] = { description: "Missing or invalid access token", ...ref };
  if (route.access.kind === "permission" || route.scopes?.length) {
    responses["403"] = { description: "Lacking the permission or scope", ...ref };
  }
  if (route.access.kind === "signedOut") responses["403"] = { description: "Called with a session", ...ref };
  return responses;
}

function operationOf(route: AnyRoute): JsonSchema {
  const operation: JsonSchema = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
    summary: route.summary,
    description: [
      route.description,
      `Access: ${describeAccess(route.access)}.`,
      route.scopes?.length ? `Scopes: any of ${route.scopes.join(", ")}.` : "",
    ]
      .filter(Boolean)
      .join("\n\n"),
    tags: [tagOf(route)],
    "x-kith-access": describeAccess(route.access),
    parameters: [...pathParametersOf(route), ...parametersOf(route.query, "query")],
    responses: {
      [String(route.status ?? 200)]: {
        description: "Success",
        ...(route.produces
          ? { content: { [route.produces]: { schema: { type: "string" } } } }
          : route.response
            ? { content: { "application/json": { schema: toSchema(route.response, "output") } } }
            : {}),
      },
      ...errorResponses(route),
    },
  };
  if (route.access.kind !== "public" && route.access.kind !== "signedOut") {
    operation.security = [{ bearer: route.scopes ? [...route.scopes] : [] }];
  }
  if (route.body) {
    const schema = toSchema(route.body, "input");
    operation.requestBody = {
      required: true,
      content: {
        "application/json": { schema },
        "application/x-www-form-urlencoded": { schema },
        "multipart/form-data": { schema },
      },
    };
  } else if (route.rawBody) {
    operation.requestBody = { required: true, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } };
  }
  return operation;
}

export interface OpenApiInfo {
  readonly origin: string;
  readonly version: string;
}

/** The OpenAPI 3.1 document of the whole route table. */
export function buildOpenApiDocument(routes: readonly AnyRoute[], info: OpenApiInfo): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, JsonSchema>)[route.method.toLowerCase()] = operationOf(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Kith API",
      version: info.version,
      description:
        "The HTTP API of a Kith server: the Mastodon client API where the platform spec gives no paths, and the platform's own endpoints.",
    },
    servers: [{ url: info.origin }],
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        bearer: {
          type: "oauth2",
          description: "An access token from /oauth/token, sent as `Authorization: Bearer <token>`.",
          flows: {
            authorizationCode: { authorizationUrl: `${info.origin}/oauth/authorize`, tokenUrl: `${info.origin}/oauth/token`, scopes: {} },
          },
        },
      },
    },
  };
}
