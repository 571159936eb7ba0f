/**
 * `node federation-lookup.ts <handle or URL>`, run by the federation harness
 * in its own process on an instance's data and configuration: resolves the
 * object the way the instance does (WebFinger over https, then a fetch
 * signed with the instance actor's key) and prints it as JSON-LD, or `null`.
 */
import { assembleKith } from "../../apps/server/src/assemble.js";
import { loadConfig } from "../../apps/server/src/config.js";

const identifier = process.argv[2];
if (!identifier) {
  process.stderr.write("usage: federation-lookup <handle or URL>\n");
  process.exit(64);
}
const kith = await assembleKith(loadConfig(process.env));
try {
  const object = await kith.federation.lookup(identifier);
  process.stdout.write(`${JSON.stringify(object ? await object.toJsonLd({ format: "compact" }) : null)}\n`);
} finally {
  await kith.close();
}
