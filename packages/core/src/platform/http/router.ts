import type { AnyRoute, HttpMethod } from "./route.js";

/** A route with its path compiled to a pattern. */
interface CompiledRoute {
  readonly route: AnyRoute;
  readonly pattern: RegExp;
  readonly paramNames: readonly string[];
  /** Literal segments sort before parameters, so `/reports/list` wins over `/reports/{id}`. */
  readonly rank: string;
  /** Its first `PREFIX_SEGMENTS` segments when all are literal text; null when one is (or holds) a parameter, or it is shorter. */
  readonly prefix: string | null;
}

export type RouteMatch =
  | { readonly kind: "found"; readonly route: AnyRoute; readonly params: Record<string, string> }
  | { readonly kind: "method_not_allowed"; readonly allowed: readonly HttpMethod[] }
  | { readonly kind: "not_found" };

/**
 * How many leading segments index the routes: most paths share `/api/v1`, and
 * the third segment (`/api/v1/timelines`) leaves a handful of routes to try
 * instead of all of them (a POST to an inbox, which no route answers, tried
 * every pattern).
 */
const PREFIX_SEGMENTS = 3;

/** The first `PREFIX_SEGMENTS` segments of a path that has more, or null. */
function prefixOf(path: string): string | null {
  let end = 0;
  for (let i = 0; i < PREFIX_SEGMENTS; i++) {
    end = path.indexOf("/", end + 1);
    if (end === -1) return null;
  }
  return path.slice(0, end);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function compile(route: AnyRoute): CompiledRoute {
  const paramNames: string[] = [];
  const segments = route.path.split("/").slice(1);
  let source = "";
  let rank = "";
  for (const segment of segments) {
    // A segment is literal text with at most one `{name}` inside it, e.g. `{eventId}.ics`.
    const match = /^(.*)\{(\w+)\}(.*)$/.exec(segment);
    if (match) {
      const [, before = "", name = "", after = ""] = match;
      paramNames.push(name);
      source += `/${escapeRegExp(before)}([^/]+?)${escapeRegExp(after)}`;
      rank += before || after ? "1" : "2";
    } else {
      source += `/${escapeRegExp(segment)}`;
      rank += "0";
    }
  }
  const leading = segments.slice(0, PREFIX_SEGMENTS);
  const literal = leading.length === PREFIX_SEGMENTS && segments.length > PREFIX_SEGMENTS && !leading.some((part) => part.includes("{"));
  return { route, pattern: new RegExp(`^${source}/?$`), paramNames, rank, prefix: literal ? `/${leading.join("/")}` : null };
}

/** Matches requests against the route table; one table, built once. */
export class Router {
  /** By prefix: the routes with that prefix and those without one, in the order of the whole table. */
  readonly #byPrefix = new Map<string, readonly CompiledRoute[]>();
  /** The routes without a prefix, for the paths no prefix names. */
  readonly #unprefixed: readonly CompiledRoute[];

  constructor(routes: readonly AnyRoute[]) {
    const seen = new Set<string>();
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      if (seen.has(key)) throw new Error(`Route declared twice: ${key}`);
      seen.add(key);
    }
    const compiled = routes.map(compile).sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
    this.#unprefixed = compiled.filter((entry) => entry.prefix === null);
    for (const prefix of new Set(compiled.map((entry) => entry.prefix))) {
      if (prefix !== null) this.#byPrefix.set(prefix, compiled.filter((entry) => entry.prefix === null || entry.prefix === prefix));
    }
  }

  /** The routes that may match `pathname`: those of its prefix (a route with another prefix cannot). */
  #candidates(pathname: string): readonly CompiledRoute[] {
    const prefix = prefixOf(pathname);
    return (prefix !== null && this.#byPrefix.get(prefix)) || this.#unprefixed;
  }

  match(method: string, pathname: string): RouteMatch {
    const allowed: HttpMethod[] = [];
    const lookup = method === "HEAD" ? "GET" : method;
    for (const entry of this.#candidates(pathname)) {
      const match = entry.pattern.exec(pathname);
      if (!match) continue;
      if (entry.route.method !== lookup) {
        allowed.push(entry.route.method);
        continue;
      }
      const params: Record<string, string> = {};
      let decodable = true;
      entry.paramNames.forEach((name, index) => {
        try {
          params[name] = decodeURIComponent(match[index + 1] ?? "");
        } catch {
          decodable = false;
        }
      });
      if (!decodable) return { kind: "not_found" };
      return { kind: "found", route: entry.route, params };
    }
    return allowed.length ? { kind: "method_not_allowed", allowed: [...new Set(allowed)] } : { kind: "not_found" };
  }
}
