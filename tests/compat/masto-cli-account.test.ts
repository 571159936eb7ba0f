/**
 * The whole path a self-hoster takes: `kith accounts create` on the server's
 * data directory, the server assembled from the same configuration, then
 * masto.js signing in by the password grant over real HTTP.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Kith } from "@kith/core";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { createOAuthAPIClient, createRestAPIClient } from "masto";
import { afterEach, expect, it } from "vitest";
import { assembleKith, loadConfig, runCli } from "../../apps/server/src/index.js";
import { describeOnEngines } from "../support/engines.js";
import { type FreshPostgresDatabase, freshPostgresDatabase } from "../support/real-servers.js";

describeOnEngines("an account made with the command line", (engine) => {
  let dataDir: string | undefined;
  let database: FreshPostgresDatabase | undefined;
  let kith: Kith | undefined;
  let server: NodeServer | undefined;

  afterEach(async () => {
    await server?.close();
    await kith?.close();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("gets a token by the password grant through masto.js and reads verify_credentials", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "kith-masto-cli-"));
    // An empty database, as a self-hoster starts with: the command line migrates it.
    if (engine.name === "postgres") database = await freshPostgresDatabase();
    const env = { KITH_DATA_DIR: dataDir, KITH_LOG_LEVEL: "error", ...(database && { KITH_DATABASE_URL: database.url }) };
    const stdout: string[] = [];
    const code = await runCli(["accounts", "create", "carol", "--email=carol@example.com", "--confirmed"], {
      env,
      out: (line) => stdout.push(line),
      err: () => {},
    });
    expect(code).toBe(0);
    const password = /^New password: (\S+)$/.exec(stdout.at(-1) ?? "")?.[1];
    expect(password).toBeDefined();

    kith = await assembleKith(loadConfig(env));
    const running = kith;
    server = await startNodeServer({ handler: (request, info) => running.fetch(request, info) });

    const app = await createRestAPIClient({ url: server.url }).v1.apps.create({
      clientName: "tootctl-style script",
      redirectUris: "urn:ietf:wg:oauth:2.0:oob",
      scopes: "read write",
    });
    const token = await createOAuthAPIClient({ url: server.url }).token.create({
      grantType: "password",
      clientId: app.clientId as string,
      clientSecret: app.clientSecret as string,
      redirectUri: "urn:ietf:wg:oauth:2.0:oob",
      username: "carol",
      password: password as string,
      scope: "read write",
    });
    const me = await createRestAPIClient({ url: server.url, accessToken: token.accessToken }).v1.accounts.verifyCredentials();
    expect(me.username).toBe("carol");
    expect(me.acct).toBe("carol");
  });
});
