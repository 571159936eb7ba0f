/**
 * Web Push, Mastodon's `/api/v1/push/subscription`: a subscription per
 * access token, and notifications pushed from the queue to a push service.
 * The push service here is a real HTTP server on loopback standing in for
 * a browser's: it checks the VAPID signature and decrypts what it receives
 * with the subscription's private key, as RFC 8291 says (aes128gcm), written
 * here with node:crypto alone.
 */
import { createECDH, createHmac, createDecipheriv, createPublicKey, randomBytes, verify } from "node:crypto";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import type { TestKith, TestUser } from "@kith/core/testing";
import { createRestAPIClient } from "masto";
import { describeOnEngines } from "../support/engines.js";

const PATH = "/api/v1/push/subscription";

interface Received {
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** A user agent's side of a subscription: its P-256 key pair and auth secret. */
interface UserAgent {
  readonly ecdh: ReturnType<typeof createECDH>;
  readonly p256dh: string;
  readonly auth: Buffer;
}

function userAgent(): UserAgent {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return { ecdh, p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16) };
}

const hmac = (key: Buffer, ...data: Buffer[]): Buffer => {
  const mac = createHmac("sha256", key);
  for (const part of data) mac.update(part);
  return mac.digest();
};

/** RFC 8291 with RFC 8188's aes128gcm content coding, one record: the plaintext the application server encrypted. */
function decrypt(agent: UserAgent, body: Buffer): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20] as number;
  const senderKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  expect(idLength).toBe(65);
  expect(ciphertext.length).toBeLessThanOrEqual(recordSize);
  const shared = agent.ecdh.computeSecret(senderKey);
  const prkKey = hmac(agent.auth, shared);
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), agent.ecdh.getPublicKey(), senderKey, Buffer.from([1])]);
  const ikm = hmac(prkKey, keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from("Content-Encoding: aes128gcm\0"), Buffer.from([1])).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from("Content-Encoding: nonce\0"), Buffer.from([1])).subarray(0, 12);
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 2, then any zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  expect(padded[end]).toBe(2);
  return padded.subarray(0, end).toString("utf8");
}

/** Checks RFC 8292's `Authorization: vapid t=<JWT>, k=<key>`: signed by `publicKey`, for the push service's origin. */
function checkVapid(header: string, publicKey: string, audience: string): void {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header);
  expect(match, header).not.toBeNull();
  const [, jwt = "", key = ""] = match ?? [];
  expect(key).toBe(publicKey);
  const [head = "", claims = "", signature = ""] = jwt.split(".");
  expect(JSON.parse(Buffer.from(head, "base64url").toString())).toMatchObject({ alg: "ES256" });
  const payload = JSON.parse(Buffer.from(claims, "base64url").toString()) as { aud: string; exp: number; sub: string };
  expect(payload.aud).toBe(audience);
  expect(payload.exp).toBeGreaterThan(Date.now() / 1000);
  const point = Buffer.from(key, "base64url");
  const jwk = { kty: "EC", crv: "P-256", x: point.subarray(1, 33).toString("base64url"), y: point.subarray(33).toString("base64url") };
  const verified = verify(
    "sha256",
    Buffer.from(`${head}.${claims}`),
    { key: createPublicKey({ key: jwk, format: "jwk" }), dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url"),
  );
  expect(verified).toBe(true);
}

async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describeOnEngines("Web Push", (engine) => {
  let service: Server;
  let base: string;
  const received: Received[] = [];
  let kith: TestKith;
  let serial = 0;
  const fresh = (options?: { scopes?: readonly string[] }) => kith.createUser(`push${++serial}`, options);

  beforeAll(async () => {
    service = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
        // A push service that forgot the subscription says so with 410 (or 404).
        res.writeHead(req.url?.startsWith("/gone") ? 410 : req.url?.startsWith("/missing") ? 404 : 201);
        res.end();
      });
    });
    await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
    // The push service is on loopback: this test's network only.
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    await kith.start();
  });
  afterAll(async () => {
    await kith?.close();
    await new Promise<void>((resolve) => service.close(() => resolve()));
  });

  const call = async (method: string, token: string | undefined, json?: unknown) => {
    const response = await kith.request(method, PATH, { ...(token && { token }), ...(json !== undefined && { json }) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const subscribe = (user: TestUser, agent: UserAgent, endpoint: string, data: unknown, policy?: string) =>
    call("POST", user.token, {
      subscription: { endpoint, keys: { p256dh: agent.p256dh, auth: agent.auth.toString("base64url") } },
      data,
      ...(policy && { policy }),
    });
  const messagesTo = (path: string) => received.filter((message) => message.path === path);
  /** Waits until no push job is waiting or running. */
  const pushesSettled = () =>
    until(
      () => kith.queue.counts("push.deliver"),
      (counts) => counts.submitted + counts.active + counts.retries === 0,
      "the push jobs",
    );
  const follow = async (follower: TestUser, target: TestUser) => {
    const response = await kith.request("POST", `/api/v1/accounts/${target.account.id}/follow`, { token: follower.token });
    expect(response.status).toBe(200);
  };

  describe("the subscription", () => {
    it("is made, read, changed and removed, with the instance's VAPID key", async () => {
      const user = await fresh();
      const agent = userAgent();
      const made = await subscribe(user, agent, `${base}/made`, { alerts: { follow: true, mention: "true" } }, "followed");
      expect(made.status).toBe(200);
      expect(made.body).toEqual({
        id: expect.stringMatching(/^ps_/),
        endpoint: `${base}/made`,
        standard: true,
        alerts: {
          mention: true,
          status: false,
          reblog: false,
          follow: true,
          follow_request: false,
          favourite: false,
          poll: false,
          update: false,
          "admin.sign_up": false,
          "admin.report": false,
        },
        policy: "followed",
        server_key: expect.stringMatching(/^[A-Za-z0-9_-]{87}$/),
      });
      const instance = (await (await kith.request("GET", "/api/v2/instance")).json()) as {
        configuration: { vapid: { public_key: string } };
      };
      expect(instance.configuration.vapid.public_key).toBe(made.body.server_key);
      const app = await kith.request("GET", "/api/v1/apps/verify_credentials", { token: user.token });
      if (app.status === 200) expect(((await app.json()) as { vapid_key: string }).vapid_key).toBe(made.body.server_key);

      expect(await call("GET", user.token)).toEqual({ status: 200, body: made.body });
      const changed = await call("PUT", user.token, { data: { alerts: { favourite: true, mention: false }, policy: "all" } });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ id: made.body.id, policy: "all", alerts: { follow: true, favourite: true, mention: false } });

      expect(await call("DELETE", user.token)).toEqual({ status: 200, body: {} });
      expect((await call("GET", user.token)).status).toBe(404);
      expect((await call("PUT", user.token, { data: { alerts: { follow: true } } })).status).toBe(404);
      // Removing what is not there is no error, as in Mastodon.
      expect((await call("DELETE", user.token)).status).toBe(200);
    });

    it("is one per access token: subscribing again replaces it, and another token of the account has its own", async () => {
      const user = await fresh();
      const first = await subscribe(user, userAgent(), `${base}/one`, { alerts: { follow: true } });
      const second = await subscribe(user, userAgent(), `${base}/two`, {});
      expect(second.status).toBe(200);
      expect(second.body.id).not.toBe(first.body.id);
      expect((await call("GET", user.token)).body).toMatchObject({ endpoint: `${base}/two`, alerts: { follow: false } });
      const other = await kith.services.sessions.issue({ accountId: user.account.id, scopes: ["read", "push"] });
      expect((await call("GET", other.accessToken)).status).toBe(404);
      await subscribe({ ...user, token: other.accessToken }, userAgent(), `${base}/three`, {});
      expect((await call("GET", user.token)).body).toMatchObject({ endpoint: `${base}/two` });
      expect((await call("GET", other.accessToken)).body).toMatchObject({ endpoint: `${base}/three` });
    });

    it("refuses bad input with the error body", async () => {
      const user = await fresh();
      const agent = userAgent();
      const auth = agent.auth.toString("base64url");
      const refused = async (json: unknown, status: number) => {
        const response = await call("POST", user.token, json);
        expect(response.status, JSON.stringify(json)).toBe(status);
        expect(response.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
      };
      await refused({}, 400);
      await refused({ subscription: { endpoint: `${base}/x` } }, 400);
      await refused({ subscription: { endpoint: "not a url", keys: { p256dh: agent.p256dh, auth } } }, 422);
      await refused({ subscription: { endpoint: "ftp://push.example/x", keys: { p256dh: agent.p256dh, auth } } }, 422);
      await refused({ subscription: { endpoint: `${base}/x`, keys: { p256dh: "AAAA", auth } } }, 422);
      await refused({ subscription: { endpoint: `${base}/x`, keys: { p256dh: agent.p256dh, auth: "c2hvcnQ" } } }, 422);
      await refused({ subscription: { endpoint: `${base}/x`, keys: { p256dh: agent.p256dh, auth } }, policy: "everyone" }, 422);
      await refused(
        { subscription: { endpoint: `${base}/x`, keys: { p256dh: agent.p256dh, auth } }, data: { alerts: { follow: "maybe" } } },
        400,
      );
      expect((await call("GET", user.token)).status).toBe(404);
      await subscribe(user, agent, `${base}/x`, {});
      const badChange = await call("PUT", user.token, { policy: "everyone" });
      expect(badChange.status).toBe(422);
    });

    it("needs a token, and the token's push scope", async () => {
      for (const method of ["POST", "GET", "PUT", "DELETE"]) {
        expect((await call(method, undefined, method === "GET" || method === "DELETE" ? undefined : {})).status).toBe(401);
      }
      const reader = await fresh({ scopes: ["read", "write", "follow"] });
      const agent = userAgent();
      const scoped = await subscribe(reader, agent, `${base}/scoped`, {});
      expect(scoped.status).toBe(403);
      expect(scoped.body).toMatchObject({ code: "auth.insufficient_scope" });
      for (const method of ["GET", "PUT", "DELETE"]) {
        expect((await call(method, reader.token, method === "PUT" ? {} : undefined)).status).toBe(403);
      }
    });
  });

  describe("delivery", () => {
    it("pushes a notification encrypted to the subscription's key, signed with the VAPID key, in Mastodon's payload", async () => {
      const user = await fresh();
      const agent = userAgent();
      const made = await subscribe(user, agent, `${base}/deliver`, { alerts: { follow: true } });
      const follower = await fresh();
      await follow(follower, user);
      const [message] = await until(
        () => messagesTo("/deliver"),
        (list) => list.length > 0,
        "the push",
      );
      if (!message) throw new Error("no push");
      expect(message.headers["content-encoding"]).toBe("aes128gcm");
      expect(Number(message.headers.ttl)).toBeGreaterThan(0);
      checkVapid(String(message.headers.authorization), String(made.body.server_key), base);
      const payload = JSON.parse(decrypt(agent, message.body)) as Record<string, unknown>;
      const notifications = (await (await kith.request("GET", "/api/v1/notifications", { token: user.token })).json()) as {
        id: string;
        type: string;
      }[];
      expect(payload).toEqual({
        access_token: user.token,
        preferred_locale: "en",
        notification_id: notifications[0]?.id,
        notification_type: "follow",
        icon: expect.stringMatching(/^https?:\/\//),
        title: `${follower.account.username} is now following you`,
        body: expect.any(String),
      });
    });

    it("keeps the access token a push carries sealed under the server's secret key, not as given", async () => {
      const user = await fresh();
      await subscribe(user, userAgent(), `${base}/sealed`, { alerts: { follow: true } });
      const rows = await kith.storage.db
        .withTables<{ push_subscriptions: { account_id: string; access_token: string } }>()
        .selectFrom("push_subscriptions")
        .select("access_token")
        .where("account_id", "=", user.account.id)
        .execute();
      expect(rows).toHaveLength(1);
      const stored = rows[0]?.access_token ?? "";
      expect(stored).not.toContain(user.token);
      expect(stored).toMatch(/^sb1\./);
      expect(kith.secrets.open(stored, "push_subscriptions.access_token")).toBe(user.token);
    });

    it("pushes only the types the alerts ask for, from the accounts the policy admits", async () => {
      const user = await fresh();
      const followed = await fresh();
      const stranger = await fresh();
      await follow(user, followed);
      await subscribe(user, userAgent(), `${base}/policy`, { alerts: { follow: true, favourite: false } }, "followed");
      const own = await kith.request("POST", "/api/v1/statuses", { token: user.token, json: { status: "hello" } });
      const statusId = ((await own.json()) as { id: string }).id;
      // Not pushed: favourites are not asked for, and the stranger is not followed.
      expect((await kith.request("POST", `/api/v1/statuses/${statusId}/favourite`, { token: followed.token })).status).toBe(200);
      await follow(stranger, user);
      await pushesSettled();
      expect(messagesTo("/policy")).toHaveLength(0);
      await follow(followed, user);
      await until(
        () => messagesTo("/policy"),
        (list) => list.length === 1,
        "the followed account's push",
      );
      await kith.request("PUT", PATH, { token: user.token, json: { policy: "none" } });
      const another = await fresh();
      await follow(user, another);
      await follow(another, user);
      await pushesSettled();
      expect(messagesTo("/policy")).toHaveLength(1);
    });

    it("drops the subscription when the push service answers 410 or 404", async () => {
      for (const path of ["/gone", "/missing"]) {
        const user = await fresh();
        await subscribe(user, userAgent(), `${base}${path}`, { alerts: { follow: true } });
        await follow(await fresh(), user);
        await until(
          () => call("GET", user.token),
          (response) => response.status === 404,
          `the subscription at ${path} dropped`,
        );
        expect(messagesTo(path).length).toBeGreaterThan(0);
      }
    });

    it("stops with the token: a revoked token's subscription gets nothing", async () => {
      const user = await fresh();
      const session = await kith.services.sessions.issue({ accountId: user.account.id, scopes: ["push"] });
      await subscribe({ ...user, token: session.accessToken }, userAgent(), `${base}/revoked`, { alerts: { follow: true } });
      await kith.services.sessions.revokeById(session.sessionId);
      await follow(await fresh(), user);
      await pushesSettled();
      expect(messagesTo("/revoked")).toHaveLength(0);
    });
  });

  it("never reaches a push service on a private address outside a test network", async () => {
    const guarded = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: false } });
    try {
      await guarded.start();
      const user = await guarded.createUser("guarded");
      const follower = await guarded.createUser("guarded_follower");
      const agent = userAgent();
      const made = await guarded.request("POST", PATH, {
        token: user.token,
        json: {
          subscription: { endpoint: `${base}/private`, keys: { p256dh: agent.p256dh, auth: agent.auth.toString("base64url") } },
          data: { alerts: { follow: true } },
        },
      });
      expect(made.status).toBe(200);
      await guarded.request("POST", `/api/v1/accounts/${user.account.id}/follow`, { token: follower.token });
      const counts = await until(
        () => guarded.queue.counts("push.deliver"),
        (c) => c.submitted + c.active + c.retries === 0 && c.finished + c.failed > 0,
        "the refused push",
      );
      expect(counts.finished).toBeGreaterThan(0);
      expect(messagesTo("/private")).toHaveLength(0);
    } finally {
      await guarded.close();
    }
  });

  describe("masto.js over HTTP", () => {
    let http: NodeServer;
    beforeAll(async () => {
      http = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    });
    afterAll(() => http?.close());

    it("creates, fetches, updates and removes the subscription", async () => {
      const user = await fresh();
      const client = createRestAPIClient({ url: http.url, accessToken: user.token });
      const agent = userAgent();
      const made = await client.v1.push.subscription.create({
        subscription: { endpoint: `${base}/masto`, keys: { p256dh: agent.p256dh, auth: agent.auth.toString("base64url") } },
        data: { alerts: { mention: true, follow: true } },
        policy: "follower",
      });
      expect(made).toMatchObject({
        endpoint: `${base}/masto`,
        policy: "follower",
        alerts: { mention: true, follow: true, favourite: false },
      });
      expect(made.serverKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
      expect(await client.v1.push.subscription.fetch()).toMatchObject({ id: made.id });
      const changed = await client.v1.push.subscription.update({ data: { alerts: { follow: false } } });
      expect(changed).toMatchObject({ id: made.id, policy: "follower", alerts: { mention: true, follow: false } });
      await client.v1.push.subscription.remove();
      await expect(client.v1.push.subscription.fetch()).rejects.toMatchObject({ statusCode: 404 });
    });
  });
});
