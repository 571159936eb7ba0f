// Module hooks that let Node run the workspace's TypeScript sources directly
// (with --experimental-transform-types and --conditions=source): a relative
// `./x.js` import from a .ts file resolves to `./x.ts` when that exists.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export async function resolve(specifier, context, next) {
  if (specifier.endsWith(".js") && context.parentURL?.endsWith(".ts") && (specifier.startsWith("./") || specifier.startsWith("../"))) {
    const candidate = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (existsSync(fileURLToPath(candidate))) return next(candidate.href, context);
  }
  return next(specifier, context);
}
