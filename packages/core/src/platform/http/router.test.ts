import { describe, expect, it } from "vitest";
import { publicAccess } from "./access.js";
import { type AnyRoute, type HttpMethod, routesOf } from "./route.js";
import { Router } from "./router.js";
import { routeTable } from "../../modules/default-modules.js";

/** Routes of no services: these tests call no handler that needs one. */
const route = routesOf<unknown>();

function fake(method: HttpMethod, path: string): AnyRoute {
  return route({ method, path, summary: `${method} ${path}`, access: publicAccess, handler: () => null });
}

/** The path of the route a request lands on, or the kind of miss. */
function landsOn(router: Router, method: string, pathname: string): string {
  const match = router.match(method, pathname);
  return match.kind === "found" ? `${match.route.method} ${match.route.path}` : match.kind;
}

describe("the router", () => {
  it("matches a literal path", () => {
    const router = new Router([fake("GET", "/api/v1/instance")]);
    expect(landsOn(router, "GET", "/api/v1/instance")).toBe("GET /api/v1/instance");
  });

  it("extracts path parameters by name", () => {
    const router = new Router([fake("POST", "/api/v1/admin/reports/{reportId}/notes/{index}")]);
    const match = router.match("POST", "/api/v1/admin/reports/rp_1/notes/3");
    expect(match).toMatchObject({ kind: "found", params: { reportId: "rp_1", index: "3" } });
  });

  it("percent-decodes path parameters", () => {
    const router = new Router([fake("GET", "/api/v1/users/remote/{name}")]);
    expect(router.match("GET", "/api/v1/users/remote/alice%40remote.example")).toMatchObject({
      kind: "found",
      params: { name: "alice@remote.example" },
    });
  });

  it("matches a parameter with a literal suffix such as {id}.ics", () => {
    const router = new Router([fake("GET", "/api/v1/events/{eventId}.ics")]);
    expect(router.match("GET", "/api/v1/events/ev_1.ics")).toMatchObject({ kind: "found", params: { eventId: "ev_1" } });
    expect(landsOn(router, "GET", "/api/v1/events/ev_1")).toBe("not_found");
  });

  it("prefers the suffixed route over a bare parameter", () => {
    const router = new Router([fake("GET", "/api/v1/events/{eventId}"), fake("GET", "/api/v1/events/{eventId}.ics")]);
    expect(landsOn(router, "GET", "/api/v1/events/ev_1.ics")).toBe("GET /api/v1/events/{eventId}.ics");
    expect(landsOn(router, "GET", "/api/v1/events/ev_1")).toBe("GET /api/v1/events/{eventId}");
  });

  it("prefers literal segments over parameters, whatever the declaration order", () => {
    const routes = [fake("GET", "/api/v1/accounts/{id}"), fake("GET", "/api/v1/accounts/verify_credentials")];
    for (const order of [routes, [...routes].reverse()]) {
      const router = new Router(order);
      expect(landsOn(router, "GET", "/api/v1/accounts/verify_credentials")).toBe("GET /api/v1/accounts/verify_credentials");
      expect(landsOn(router, "GET", "/api/v1/accounts/us_1")).toBe("GET /api/v1/accounts/{id}");
    }
  });

  it("between two routes with one parameter each, prefers the one whose literal segment comes first", () => {
    const router = new Router([fake("GET", "/api/v1/{kind}/list"), fake("GET", "/api/v1/reports/{id}")]);
    expect(landsOn(router, "GET", "/api/v1/reports/list")).toBe("GET /api/v1/reports/{id}");
  });

  it("does not let a parameter span several segments", () => {
    const router = new Router([fake("GET", "/api/v1/accounts/{id}")]);
    expect(landsOn(router, "GET", "/api/v1/accounts/us_1/statuses")).toBe("not_found");
  });

  it("does not match an empty parameter", () => {
    const router = new Router([fake("GET", "/api/v1/accounts/{id}/statuses")]);
    expect(landsOn(router, "GET", "/api/v1/accounts//statuses")).toBe("not_found");
  });

  it("answers method_not_allowed with every method the path allows", () => {
    const router = new Router([fake("GET", "/api/v1/admin/settings"), fake("PATCH", "/api/v1/admin/settings"), fake("GET", "/health")]);
    expect(router.match("DELETE", "/api/v1/admin/settings")).toEqual({ kind: "method_not_allowed", allowed: ["GET", "PATCH"] });
  });

  it("lists each allowed method once", () => {
    const router = new Router([
      fake("GET", "/api/v1/things/{id}"),
      fake("GET", "/api/v1/things/{id}.ics"),
      fake("PUT", "/api/v1/things/{id}"),
    ]);
    expect(router.match("DELETE", "/api/v1/things/x.ics")).toEqual({ kind: "method_not_allowed", allowed: ["GET", "PUT"] });
  });

  it("matches HEAD to the GET route", () => {
    const router = new Router([fake("GET", "/health")]);
    expect(landsOn(router, "HEAD", "/health")).toBe("GET /health");
  });

  it("does not match HEAD to a route of another method", () => {
    const router = new Router([fake("POST", "/api/v1/statuses")]);
    expect(router.match("HEAD", "/api/v1/statuses")).toEqual({ kind: "method_not_allowed", allowed: ["POST"] });
  });

  it("accepts a trailing slash", () => {
    const router = new Router([fake("GET", "/api/v1/instance"), fake("GET", "/api/v1/accounts/{id}")]);
    expect(landsOn(router, "GET", "/api/v1/instance/")).toBe("GET /api/v1/instance");
    expect(router.match("GET", "/api/v1/accounts/us_1/")).toMatchObject({ kind: "found", params: { id: "us_1" } });
  });

  it("answers not_found for an unknown path", () => {
    const router = new Router([fake("GET", "/api/v1/instance")]);
    expect(landsOn(router, "GET", "/api/v1/nothing")).toBe("not_found");
  });

  it("answers not_found for a parameter with an undecodable percent-escape", () => {
    const router = new Router([fake("GET", "/api/v1/accounts/{id}")]);
    expect(landsOn(router, "GET", "/api/v1/accounts/%E0%A4%A")).toBe("not_found");
  });

  it("treats regular-expression characters in literal segments literally", () => {
    const router = new Router([fake("GET", "/api/v1/openapi.json")]);
    expect(landsOn(router, "GET", "/api/v1/openapixjson")).toBe("not_found");
  });

  it("refuses a route declared twice", () => {
    expect(() => new Router([fake("GET", "/api/v1/instance"), fake("GET", "/api/v1/instance")])).toThrow(/twice/);
  });

  it("allows the same path under different methods", () => {
    expect(() => new Router([fake("GET", "/api/v1/instance"), fake("POST", "/api/v1/instance")])).not.toThrow();
  });

  it("finds every route of the table from its own path, as a search of all the routes in order would", () => {
    const router = new Router(routeTable);
    const sorted = routeTable.map((entry) => new Router([entry]));
    const paths = routeTable.flatMap((entry) => {
      const path = entry.path.replace(/\{\w+\}/g, "x1");
      return [path, `${path}/`];
    });
    for (const path of [...paths, "/inbox", "/users/alice/inbox", "/api", "/api/v1", "/api/v1/", "/nowhere/at/all/here"]) {
      for (const method of ["GET", "POST", "DELETE"]) {
        // The whole table tried route by route: every route that takes the path, in the router's order of preference.
        const takers = routeTable.filter((_, i) => sorted[i]?.match(method, path).kind !== "not_found");
        const expected = takers.length === 0 ? "not_found" : landsOn(new Router(takers), method, path);
        expect(`${method} ${path}: ${landsOn(router, method, path)}`).toBe(`${method} ${path}: ${expected}`);
      }
    }
  });
});
