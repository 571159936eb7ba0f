/**
 * `node federation-admin-token.ts <local username>`, run by the federation
 * harness on an instance's data: gives the account the built-in Admin role
 * and prints a new access token of it with the admin scopes, for driving the
 * instance's admin API in tests.
 */
import { assembleKith } from "../../apps/server/src/assemble.js";
import { loadConfig } from "../../apps/server/src/config.js";
import { findLocalActorAccount } from "../../packages/core/src/modules/federation/federation-reads-store.js";

const username = process.argv[2];
if (!username) {
  process.stderr.write("usage: federation-admin-token <local username>\n");
  process.exit(64);
}
const kith = await assembleKith(loadConfig(process.env));
try {
  await kith.services.accounts.modify(username, { role: "Admin" });
  const account = await findLocalActorAccount(kith.storage.db, username);
  if (!account) throw new Error(`No local account ${username}`);
  const issued = await kith.services.sessions.issue({
    accountId: account.id,
    scopes: ["read", "write", "follow", "admin:read", "admin:write"],
  });
  process.stdout.write(`${issued.accessToken}\n`);
} finally {
  await kith.close();
}
