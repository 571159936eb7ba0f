// Module hooks that append the URL of every module resolved to the file named
// by KITH_RESOLVED_MODULES, one a line (tests/server/start-up-modules.test.ts).
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.KITH_RESOLVED_MODULES) appendFileSync(process.env.KITH_RESOLVED_MODULES, `${result.url}\n`);
  return result;
}
