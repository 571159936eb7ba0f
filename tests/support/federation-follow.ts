/**
 * `node federation-follow.ts <local username> <handle>`, run by the
 * federation harness on an instance's data: the local account asks to
 * follow the remote actor (a follow request, then a Follow delivered at
 * once). The answer (Accept) arrives at the running server.
 */
import { assembleKith } from "../../apps/server/src/assemble.js";
import { loadConfig } from "../../apps/server/src/config.js";

const [username, handle] = process.argv.slice(2);
if (!username || !handle) {
  process.stderr.write("usage: federation-follow <local username> <handle>\n");
  process.exit(64);
}
const kith = await assembleKith(loadConfig(process.env));
try {
  const sent = await kith.federation.sendFollow(username, handle, { immediate: true });
  if (!sent) throw new Error(`Cannot follow ${handle} as ${username}`);
  process.stdout.write(`${JSON.stringify(sent)}\n`);
} finally {
  await kith.close();
}
