/**
 * `node federation-send.ts <local username> <recipient actor URI> <inbox URL> <activity JSON>...`,
 * run by the federation harness on an instance's data: sends each activity
 * as given, signed with the local account's keys, straight to the inbox
 * (not queued), in order. For tests of what a receiving server does with
 * repeated, out-of-order or forged activities.
 */
// The tests package does not depend on Fedify itself: its vocabulary is taken from the core package's.
import { Activity } from "../../packages/core/node_modules/@fedify/fedify/dist/vocab/mod.js";
import { assembleKith } from "../../apps/server/src/assemble.js";
import { loadConfig } from "../../apps/server/src/config.js";

const [username, recipient, inbox, ...documents] = process.argv.slice(2);
if (!username || !recipient || !inbox || documents.length === 0) {
  process.stderr.write("usage: federation-send <local username> <recipient actor URI> <inbox URL> <activity JSON>...\n");
  process.exit(64);
}
const kith = await assembleKith(loadConfig(process.env));
try {
  const ctx = (await kith.federation.load()).context();
  for (const document of documents) {
    const activity = await Activity.fromJsonLd(JSON.parse(document), {
      documentLoader: ctx.documentLoader,
      contextLoader: ctx.contextLoader,
    });
    await ctx.sendActivity({ identifier: username }, { id: new URL(recipient), inboxId: new URL(inbox) }, activity, { immediate: true });
  }
  process.stdout.write("sent\n");
} finally {
  await kith.close();
}
