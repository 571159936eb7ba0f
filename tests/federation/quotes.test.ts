/**
 * Quote posts between two Kith server processes over HTTPS (FEP-044f), driven
 * by their Mastodon APIs: a quote of the other server's status is pending
 * until the quoted author's server answers its QuoteRequest with an Accept
 * and a QuoteAuthorization stamp, served at its id; the quoted author sees
 * the quote accepted, counted and notified; revoking it deletes the stamp and
 * the quoting server shows the quote revoked. A request the quoted status's
 * policy refuses is answered with a Reject, and the quote reads rejected.
 */
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type Federation, type JsonResponse, type TestInstance, startFederation } from "../support/federation-harness.js";

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Status {
  id: string;
  uri: string;
  quotes_count: number;
  quote: { state: string; quoted_status: Status | null } | null;
  quote_approval: { automatic: string[]; manual: string[]; current_user: string };
}

class Client {
  constructor(
    readonly instance: TestInstance,
    readonly token: string,
  ) {}

  call(method: string, path: string, body?: unknown): Promise<JsonResponse> {
    return this.instance.request(method, path, {
      headers: { authorization: `Bearer ${this.token}`, ...(body !== undefined && { "content-type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  }

  async ok<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.call(method, path, body);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as T;
  }

  status(id: string): Promise<Status> {
    return this.ok<Status>("GET", `/api/v1/statuses/${id}`);
  }

  /** This server's copy of a status, found by its URI in the home timeline. */
  async copyOf(uri: string): Promise<Status | undefined> {
    const home = await eventually(
      () => this.ok<Status[]>("GET", "/api/v1/timelines/home?limit=40"),
      (statuses) => statuses.some((status) => status.uri === uri),
    );
    return home.find((status) => status.uri === uri);
  }
}

const activityJson = { accept: "application/activity+json" };

async function tokenFor(instance: TestInstance, username: string): Promise<string> {
  return (await instance.runScript("federation-token.ts", [username])).trim();
}

describeOnEngines("quote posts between two server processes", (engine) => {
  let net: Federation;
  let a: TestInstance;
  let b: TestInstance;
  let alice: Client;
  let bob: Client;

  beforeAll(async () => {
    net = await startFederation(2, process.env.KITH_TEST_DUMP ? { KITH_LOG_LEVEL: "debug" } : {}, engine.name);
    [a, b] = net.instances as [TestInstance, TestInstance];
    await Promise.all([a.createAccount("alice"), b.createAccount("bob")]);
    alice = new Client(a, await tokenFor(a, "alice"));
    bob = new Client(b, await tokenFor(b, "bob"));
    await b.runScript("federation-follow.ts", ["bob", `@alice@${a.host}`]);
    await a.runScript("federation-follow.ts", ["alice", `@bob@${b.host}`]);
  }, 180_000);
  afterAll(async () => {
    if (process.env.KITH_TEST_DUMP)
      for (const instance of net?.instances ?? []) writeFileSync(`${process.env.KITH_TEST_DUMP}-${instance.name}.log`, instance.output());
    await net?.stop();
  });

  it("asks, authorizes with a dereferenceable stamp, and revokes a quote across servers", async () => {
    const original = await alice.ok<Status>("POST", "/api/v1/statuses", { status: "Quote me from A" });
    const seen = await bob.copyOf(original.uri);
    expect(seen?.quote_approval).toEqual({ automatic: ["public"], manual: [], current_user: "automatic" });
    if (!seen) return;

    // Pending until A answers; then accepted with the stamp A gave.
    const quote = await bob.ok<Status>("POST", "/api/v1/statuses", { status: "Quoting A", quoted_status_id: seen.id });
    expect(quote.quote).toEqual({ state: "pending", quoted_status: null });
    const accepted = await eventually(
      () => bob.status(quote.id),
      (status) => status.quote?.state === "accepted",
    );
    expect(accepted.quote).toMatchObject({ state: "accepted", quoted_status: { id: seen.id } });

    // On A: the quote is stored accepted, counted and notified.
    const onA = await alice.copyOf(quote.uri);
    expect(onA?.quote).toMatchObject({ state: "accepted", quoted_status: { id: original.id } });
    expect((await alice.status(original.id)).quotes_count).toBe(1);
    const notified = await alice.ok<{ type: string; status: { uri: string } }[]>("GET", "/api/v1/notifications?types[]=quote");
    expect(notified.map((n) => n.status.uri)).toEqual([quote.uri]);
    if (!onA) return;

    // The Note B serves names the quote, its stamp, and who may quote it; the stamp is served by A.
    const note = await b.request("GET", new URL(quote.uri).pathname, { headers: activityJson });
    const stampPath = `/users/alice/quote_authorizations/${onA.id}`;
    expect(note.body).toMatchObject({
      quote: original.uri,
      quoteUrl: original.uri,
      _misskey_quote: original.uri,
      quoteAuthorization: `${a.origin}${stampPath}`,
      interactionPolicy: { canQuote: { automaticApproval: expect.arrayContaining(["https://www.w3.org/ns/activitystreams#Public"]) } },
    });
    const stamp = await a.request("GET", stampPath, { headers: activityJson });
    expect(stamp.status).toBe(200);
    expect(stamp.body).toMatchObject({
      type: "QuoteAuthorization",
      id: `${a.origin}${stampPath}`,
      interactingObject: quote.uri,
      interactionTarget: original.uri,
    });

    // Alice revokes: the stamp goes, and B shows the quote revoked.
    const revoked = await alice.ok<Status>("POST", `/api/v1/statuses/${original.id}/quotes/${onA.id}/revoke`);
    expect(revoked.quote).toEqual({ state: "revoked", quoted_status: null });
    expect((await alice.status(original.id)).quotes_count).toBe(0);
    expect((await a.request("GET", stampPath, { headers: activityJson })).status).toBe(404);
    const onB = await eventually(
      () => bob.status(quote.id),
      (status) => status.quote?.state === "revoked",
    );
    expect(onB.quote).toEqual({ state: "revoked", quoted_status: null });
  });

  it("answers a request the policy refuses with a Reject", async () => {
    const original = await alice.ok<Status>("POST", "/api/v1/statuses", { status: "Soon nobody may quote this" });
    const seen = await bob.copyOf(original.uri);
    if (!seen) throw new Error("not delivered");
    // The policy changes on A only: B still believes it may ask.
    await alice.ok("PUT", `/api/v1/statuses/${original.id}/interaction_policy`, { quote_approval_policy: "nobody" });
    const quote = await bob.ok<Status>("POST", "/api/v1/statuses", { status: "Too late", quoted_status_id: seen.id });
    const rejected = await eventually(
      () => bob.status(quote.id),
      (status) => status.quote?.state === "rejected",
    );
    expect(rejected.quote).toEqual({ state: "rejected", quoted_status: null });
    expect((await alice.status(original.id)).quotes_count).toBe(0);

    // A status whose Note says nobody may quote it is refused at once on B.
    const closed = await alice.ok<Status>("POST", "/api/v1/statuses", { status: "Nobody", quote_approval_policy: "nobody" });
    const closedSeen = await bob.copyOf(closed.uri);
    expect(closedSeen?.quote_approval).toEqual({ automatic: [], manual: [], current_user: "denied" });
    expect((await bob.call("POST", "/api/v1/statuses", { status: "no", quoted_status_id: closedSeen?.id })).status).toBe(403);
  });
});
