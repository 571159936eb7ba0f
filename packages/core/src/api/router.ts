import type { AnyRoute, HttpMethod } from "./route.js";

/** A route with its path compiled to a pattern. */
interface CompiledRoute {
  readonly route: AnyRoute;
  readonly pattern: RegExp;
  readonly paramNames: readonly string[];
  /** Literal segments sort before parameters, so `/reports/list` wins over `/reports/{id}`. */
  readonly rank: string;
}

export type RouteMatch =
  | { readonly kind: "found"; readonly route: AnyRoute; readonly params: Record<string, string> }
  | { readonly kind: "method_not_allowed"; readonly allowed: readonly HttpMethod[] }
  | { readonly kind: "not_found" };

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
  return { route, pattern: new RegExp(`^${source}/?$`), paramNames, rank };
}

/** Matches requests against the route table; one table, built once. */
export class Router {
  readonly #compiled: readonly CompiledRoute[];

  constructor(routes: readonly AnyRoute[]) {
    const seen = new Set<string>();
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      if (seen.has(key)) throw new Error(`Route declared twice: ${key}`);
      seen.add(key);
    }
    this.#compiled = routes.map(compile).sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
  }

  match(method: string, pathname: string): RouteMatch {
    const allowed: HttpMethod[] = [];
    const lookup = method === "HEAD" ? "GET" : method;
    for (const entry of this.#compiled) {
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
