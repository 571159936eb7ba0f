/**
 * Expands Rails-style keys, as Mastodon clients send them in forms and query
 * strings: `media_ids[]=1&media_ids[]=2`, `poll[options][]=a`,
 * `fields_attributes[0][name]=x`. Objects whose keys are all indexes become
 * arrays, below the top: the parameters themselves are always an object, as
 * Rails' are, so `?0=id` (how some clients write a list) is a parameter named
 * `0` that routes do not take, not a list in place of every parameter. A
 * repeated plain key keeps its last value, as Rails does. A key
 * nested past `MAX_PARAMETER_DEPTH` is refused with 422, as Rack refuses
 * one past its own depth limit.
 */

import { assertKeyWithinBound } from "./nesting-depth.js";

const FORBIDDEN = new Set(["__proto__", "prototype", "constructor"]);

type Tree = { [key: string]: unknown };

function splitKey(key: string): string[] | null {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match) return null;
  const rest = match[2] ?? "";
  const segments = [match[1] ?? ""];
  for (const part of rest.matchAll(/\[([^[\]]*)\]/g)) segments.push(part[1] ?? "");
  return segments;
}

function assign(tree: Tree, segments: string[], value: unknown): void {
  let node: Tree = tree;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] ?? "";
    if (FORBIDDEN.has(segment)) return;
    const last = i === segments.length - 1;
    const next = segments[i + 1];
    if (segment === "") return; // `[]` in the middle of a key is handled below; a bare one is malformed
    if (last) {
      node[segment] = value;
      return;
    }
    if (next === "") {
      // `key[]` (possibly followed by more, which Rails does not support either): append.
      const existing = node[segment];
      const list = Array.isArray(existing) ? existing : [];
      if (segments.length === i + 2) {
        list.push(value);
        node[segment] = list;
        return;
      }
      // `key[][name]`: start a new element when the current one already has `name`.
      const rest = segments.slice(i + 2);
      let element = list[list.length - 1] as Tree | undefined;
      if (!element || typeof element !== "object" || rest[0] === undefined || rest[0] in element) {
        element = {};
        list.push(element);
      }
      node[segment] = list;
      assign(element, rest, value);
      return;
    }
    const child = node[segment];
    if (typeof child !== "object" || child === null || Array.isArray(child)) node[segment] = {};
    node = node[segment] as Tree;
  }
}

function indexObjectsToArrays(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(indexObjectsToArrays);
  if (typeof value !== "object" || value === null || value instanceof Blob) return value;
  const entries = Object.entries(value as Tree).map(([key, inner]) => [key, indexObjectsToArrays(inner)] as const);
  if (entries.length > 0 && entries.every(([key]) => /^\d+$/.test(key))) {
    return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, inner]) => inner);
  }
  return Object.fromEntries(entries);
}

/** The parameters built from forms and query strings, which carry text only: see `isTextParameters`. */
const fromText = new WeakSet<object>();

/**
 * Whether `value` is parameters built from a form, multipart body or query string (not JSON): there every value is
 * text, and validation may drop a text where a structure is expected, as Rails' strong parameters do.
 */
export function isTextParameters(value: unknown): boolean {
  return typeof value === "object" && value !== null && fromText.has(value);
}

/** Builds a nested object from flat form or query entries. */
export function expandRailsParams(entries: Iterable<readonly [string, unknown]>): Record<string, unknown> {
  const tree = expandEntries(entries);
  fromText.add(tree);
  return tree;
}

function expandEntries(entries: Iterable<readonly [string, unknown]>): Record<string, unknown> {
  const tree: Tree = {};
  // Most requests name plain keys only (`limit=40`): those skip the parsing and the walk that turns indexes into arrays.
  let plain = true;
  for (const [key, value] of entries) {
    if (isPlainKey(key)) {
      if (!FORBIDDEN.has(key)) tree[key] = value;
      continue;
    }
    plain = false;
    assertKeyWithinBound(key);
    const segments = splitKey(key);
    if (segments) assign(tree, segments, value);
    else if (!FORBIDDEN.has(key)) tree[key] = value;
  }
  if (plain) return tree;
  const expanded: Tree = {};
  for (const [key, value] of Object.entries(tree)) expanded[key] = indexObjectsToArrays(value);
  return expanded;
}

/** A key that is not empty and holds no brackets: its value goes under it as it is. */
function isPlainKey(key: string): boolean {
  return key !== "" && !key.includes("[") && !key.includes("]");
}
