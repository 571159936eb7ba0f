/**
 * Sends malformed input to every route of the route table and expects no
 * 500: garbage and mistyped JSON, form bodies with odd keys, huge numbers,
 * deep brackets, invalid ids in the path and odd query strings. The caller is
 * an Owner (a fresh one per route, since some routes end their own session),
 * so that permission checks let the requests through to validation and the
 * handlers. The variants come from a seeded generator: a failure names the
 * seed, the route and the request, and `KITH_FUZZ_SEED=<seed>` replays it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type AnyRoute, ID_PREFIXES, type IdKind, lowestIdAt } from "@kith/core";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { buildOpenApiDocument } from "../../packages/core/src/platform/http/openapi.js";
import { routeTable } from "../../packages/core/src/modules/default-modules.js";

const SEED = Number(process.env.KITH_FUZZ_SEED ?? 45);

type JsonSchema = Record<string, unknown>;

interface FuzzRequest {
  readonly label: string;
  readonly path: string;
  readonly body?: string | Uint8Array<ArrayBuffer>;
  readonly contentType?: string;
}

/** mulberry32: small, fast and the same on every machine. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed per route, so that one route's variants do not depend on the routes walked before it. */
function seedFor(route: AnyRoute): number {
  let hash = SEED >>> 0;
  for (const char of `${route.method} ${route.path}`) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  return hash;
}

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)] as T;
}

/** Values of the wrong type or shape for almost any field. */
const ODD_JSON_VALUES: readonly unknown[] = [
  null,
  true,
  -1,
  0,
  1e308,
  -1e308,
  2 ** 64,
  0.5,
  "",
  "9".repeat(400),
  "x".repeat(5000),
  "\u0000",
  "<script>alert(1)</script>",
  "not-a-date",
  "2026-13-45T99:99:99Z",
  "../../../etc/passwd",
  "%",
  [],
  [[[]]],
  [null, 1, "a"],
  {},
  { a: { b: 1 } },
  { __proto__: { polluted: true } },
];

/** Odd texts for form fields, query parameters and ids. */
const ODD_TEXTS: readonly string[] = [
  "",
  "-1",
  "0",
  "1e400",
  "99999999999999999999999999999",
  "NaN",
  "true",
  "null",
  "abc",
  "\u0000",
  "😀",
  "' OR 1=1 --",
  "%",
  "..",
  "x".repeat(3000),
];

/** Path parameter values that are not ids of anything. */
const ODD_IDS: readonly string[] = ["0", "-1", "9".repeat(40), "abc", "..", "%00", "😀", "' OR 1=1 --", "1e309", "null", " ", "x".repeat(600)];

/** Ids of rows that exist, so that requests with well-formed input reach the handlers' work. */
interface Fixture {
  readonly accountId: string;
  readonly statusId: string;
}

/** A value for a path parameter: a real id where the path says what it names, else an id of the kind its name says, else a word. */
function sampleValue(route: AnyRoute, param: string, fixture: Fixture): string {
  if (param === "id" && /\/statuses\/\{id\}/.test(route.path)) return fixture.statusId;
  if ((param === "id" && /\/accounts\/\{id\}/.test(route.path)) || param === "accountId") return fixture.accountId;
  const kind = /^(\w+)Id$/.exec(param)?.[1];
  if (kind && kind in ID_PREFIXES) return lowestIdAt(kind as IdKind, Date.UTC(2026, 0, 1));
  return "sample";
}

function fillPath(route: AnyRoute, value: (param: string) => string): string {
  return route.path.replace(/\{(\w+)\}/g, (_, param: string) => encodeURIComponent(value(param)));
}

const document = buildOpenApiDocument(routeTable, { origin: "https://kith.test", version: "fuzz" }) as {
  paths: Record<string, Record<string, JsonSchema>>;
};

function operationOf(route: AnyRoute): JsonSchema {
  return document.paths[route.path]?.[route.method.toLowerCase()] ?? {};
}

/** The declared fields of the route's body, each with its JSON Schema. */
function bodyFieldsOf(route: AnyRoute): [string, JsonSchema][] {
  const body = operationOf(route).requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined;
  const properties = body?.content?.["application/json"]?.schema?.properties;
  return properties && typeof properties === "object" ? Object.entries(properties as Record<string, JsonSchema>) : [];
}

function queryFieldsOf(route: AnyRoute): [string, JsonSchema][] {
  const parameters = (operationOf(route).parameters ?? []) as { name: string; in: string; schema?: JsonSchema }[];
  return parameters.filter((parameter) => parameter.in === "query").map((parameter) => [parameter.name, parameter.schema ?? {}]);
}

/** The JSON type a field's schema asks for, looking through nullable and union wrappers. */
function typeOf(schema: JsonSchema): string {
  const type = schema.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return String(type.find((item) => item !== "null") ?? "unknown");
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const options = schema[key];
    if (Array.isArray(options)) {
      for (const option of options as JsonSchema[]) {
        const inner = typeOf(option);
        if (inner !== "null" && inner !== "unknown") return inner;
      }
    }
  }
  return "unknown";
}

/** A value of the type the schema asks for, at an edge: extreme numbers, odd texts, lists of them. */
function extremeValueOf(random: () => number, schema: JsonSchema): unknown {
  switch (typeOf(schema)) {
    case "integer":
      return pick(random, [-1, 0, 2 ** 31, 2 ** 53 + 2, -(2 ** 53)]);
    case "number":
      return pick(random, [-1, 0, 1e308, -1e308, 5e-324]);
    case "boolean":
      return random() < 0.5;
    case "array":
      return Array.from({ length: pick(random, [0, 1, 50]) }, () => pick(random, ODD_TEXTS));
    case "object":
      return pick(random, [{}, { a: "b" }, { "0": { name: "x" } }]);
    default:
      return pick(random, ODD_TEXTS);
  }
}

/** The malformed requests sent to one route. */
function malformedRequests(route: AnyRoute, fixture: Fixture): FuzzRequest[] {
  const random = generator(seedFor(route));
  const path = fillPath(route, (param) => sampleValue(route, param, fixture));
  const bodyFields = bodyFieldsOf(route);
  const queryFields = queryFieldsOf(route);
  const requests: FuzzRequest[] = [];
  const json = (label: string, value: unknown) => requests.push({ label, path, body: JSON.stringify(value), contentType: "application/json" });

  for (const params of [0, 1]) {
    if (!route.path.includes("{")) break;
    requests.push({ label: `invalid path ids #${params}`, path: fillPath(route, () => pick(random, ODD_IDS)) });
  }
  for (let round = 0; round < 2; round++) {
    const query = new URLSearchParams();
    for (const [field, schema] of queryFields) {
      const value = extremeValueOf(random, schema);
      if (Array.isArray(value)) for (const item of value) query.append(`${field}[]`, String(item));
      else query.append(field, typeof value === "object" ? JSON.stringify(value) : String(value));
    }
    requests.push({ label: `extreme query #${round}`, path: `${path}?${query}` });
  }
  const odd = new URLSearchParams();
  for (const [field] of queryFields) odd.append(pick(random, [field, `${field}[]`, `${field}[x]`]), pick(random, ODD_TEXTS));
  odd.append("limit", pick(random, ["-5", "1e400", "abc", "99999999999"]));
  odd.append("since_id", "99999999999999999999999999999");
  requests.push({ label: "mistyped query", path: `${path}?${odd}` });
  requests.push({ label: "query of broken escapes", path: `${path}?%&=&==&a=%zz&${"b[".repeat(50)}=1&${"c[d]".repeat(50)}=1` });

  if (route.method === "GET") return requests;
  requests.push({ label: "garbage JSON", path, body: pick(random, ['{"a":', "{'a':1}", "[1,2", '{"a":1}}', "\u0000"]), contentType: "application/json" });
  requests.push({ label: "invalid UTF-8", path, body: new Uint8Array([0x61, 0x3d, 0xff, 0xfe]), contentType: "application/x-www-form-urlencoded" });
  json("JSON that is not an object", pick(random, [null, 42, "text", [1, 2], true]));
  for (let round = 0; round < 3; round++) {
    const value: Record<string, unknown> = {};
    for (const [field, schema] of bodyFields) value[field] = extremeValueOf(random, schema);
    json(`extreme JSON #${round}`, value);
  }
  for (const [field] of bodyFields.slice(0, 4)) json(`mistyped ${field}`, { [field]: pick(random, ODD_JSON_VALUES) });
  const everythingWrong: Record<string, unknown> = {};
  for (const [field] of bodyFields) everythingWrong[field] = pick(random, ODD_JSON_VALUES);
  everythingWrong[pick(random, ["unknown", "__proto__", "constructor", "id"])] = pick(random, ODD_JSON_VALUES);
  json("mistyped JSON", everythingWrong);
  const form = new URLSearchParams();
  for (const [field] of bodyFields) {
    form.append(pick(random, [field, `${field}[]`, `${field}[0][name]`, `${field}[x]`]), pick(random, ODD_TEXTS));
  }
  requests.push({ label: "mistyped form", path, body: form.toString(), contentType: "application/x-www-form-urlencoded" });
  requests.push({ label: "deep brackets", path, body: `a${"[b]".repeat(5000)}=1`, contentType: "application/x-www-form-urlencoded" });
  requests.push({ label: "odd multipart", path, body: "--x\r\nContent-Disposition: form-data\r\n\r\n", contentType: "multipart/form-data; boundary=x" });
  return requests;
}

describeOnEngines(`route fuzz (seed ${SEED})`, (engine) => {
  let kith: TestKith;
  let serial = 0;

  let fixture: Fixture;

  beforeAll(async () => {
    kith = await engine.testKith();
    const author = await kith.createUser("fuzzed");
    const posted = await kith.request("POST", "/api/v1/statuses", { token: author.token, json: { status: "a status to fuzz" } });
    fixture = { accountId: author.account.id, statusId: ((await posted.json()) as { id: string }).id };
  });
  afterAll(() => kith.close());

  it("sends something to every route", () => {
    expect(routeTable.length).toBeGreaterThan(100);
    expect(routeTable.some((route) => bodyFieldsOf(route).length > 0)).toBe(true);
    expect(routeTable.some((route) => queryFieldsOf(route).length > 0)).toBe(true);
  });

  it.each(routeTable.map((route) => [`${route.method} ${route.path}`, route] as const))("%s answers no 500 to malformed input", async (_, route) => {
    const owner = await kith.createUser(`fuzz${++serial}`, { role: "Owner" });
    const failures: string[] = [];
    const requests = malformedRequests(route, fixture);
    for (const request of requests) {
      const body = typeof request.body === "string" ? new TextEncoder().encode(request.body) : request.body;
      const response = await kith.request(route.method, request.path, {
        token: owner.token,
        ...(body && { body }),
        ...(request.contentType && { headers: { "content-type": request.contentType } }),
      });
      if (response.status >= 500) {
        failures.push(`${request.label}: ${response.status} ${await response.text()} <- ${request.path} ${String(request.body ?? "").slice(0, 300)}`);
      } else await response.body?.cancel();
    }
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  // PostgreSQL cannot store a NUL character: it is refused at the edge, on every route, with the field that holds it.
  it("refuses a NUL character in a cursor id or a JSON field with 422", async () => {
    const owner = await kith.createUser(`fuzz${++serial}`, { role: "Owner" });
    const cursor = await kith.request("GET", "/api/v1/mutes?max_id=%00", { token: owner.token });
    expect(cursor.status).toBe(422);
    expect(await cursor.json()).toMatchObject({ code: "request.validation_failed", details: [{ field: "query.max_id" }] });
    const role = await kith.request("POST", "/api/v1/admin/rbac/roles", { token: owner.token, json: { name: "\u0000" } });
    expect(role.status).toBe(422);
    expect(await role.json()).toMatchObject({ details: [{ field: "body.name" }] });
  });
});
