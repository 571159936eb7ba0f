import { KithError } from "../../domain/errors.js";

/**
 * How deeply a request's parameters may nest (brackets of a form key, arrays
 * and objects of a JSON body). No Mastodon API goes past four levels; the
 * bound keeps every recursive walk after parsing (expansion, validation,
 * serialisation) far from the stack's end, whatever a client sends.
 */
export const MAX_PARAMETER_DEPTH = 32;

/** Refuses with 422 a value nested deeper than the bound; walks without recursion, so any depth is measured safely. */
export function assertNestingWithinBound(value: unknown, maxDepth: number = MAX_PARAMETER_DEPTH): void {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== "object" || item === null || item instanceof Blob) continue;
    if (depth >= maxDepth) throw tooDeep();
    for (const inner of Object.values(item)) pending.push([inner, depth + 1]);
  }
}

/** Refuses a form or query key with more bracket groups than the bound, before it is parsed. */
export function assertKeyWithinBound(key: string, maxDepth: number = MAX_PARAMETER_DEPTH): void {
  let brackets = 0;
  for (let i = key.indexOf("["); i !== -1; i = key.indexOf("[", i + 1)) {
    brackets++;
    if (brackets > maxDepth) throw tooDeep();
  }
}

function tooDeep(): KithError {
  return new KithError("request.nesting_too_deep", {
    message: `The parameters are nested more than ${MAX_PARAMETER_DEPTH} levels deep`,
  });
}
