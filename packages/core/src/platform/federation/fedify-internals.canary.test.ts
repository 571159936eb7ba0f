import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type DocumentLoader,
  type Federation,
  type KvKey,
  type Message,
  type MessageQueue,
  MemoryKvStore,
  createFederation,
  generateCryptoKeyPair,
  preloadedContexts,
  signRequest,
} from "@fedify/fedify";
import { Activity, Create, CryptographicKey, Follow, Note, Person } from "@fedify/fedify/vocab";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEDIFY_KV_PREFIXES } from "./fedify-kv-prefixes.js";
import { inboxIdempotenceKey } from "./inbox-idempotence.js";
import { batchOutboxMessages } from "./outbox-batch.js";
import { VerifiedKeys } from "./verified-keys.js";

// Canary of what Kith's speed-ups rely on in Fedify beyond its documented API (docs/optimisations.md), checked with
// Fedify's own code: what it writes in its key-value store, the inbox context its handler makes, the document its
// vocabulary objects keep and the shape of its queued deliveries. A failure here means a Fedify
// release changed one of them: turn the speed-up off (core config `optimisations`; KITH_OPTIMISATIONS_OFF for the
// server) and adapt it.

const ORIGIN = "https://kith.test";
const REMOTE = "https://remote.example";
const BOB = `${REMOTE}/users/bob`;
const BOB_KEY = `${BOB}#main-key`;

interface Fixture {
  readonly federation: Federation<void>;
  readonly kv: MemoryKvStore;
  readonly handled: string[];
  readonly queued: Message[];
  /** A POST of `activity` to the shared inbox, signed with Bob's key (or `keyId`). */
  post(activity: Activity, keyId?: string): Promise<Response>;
}

async function fixture(): Promise<Fixture> {
  const bobKeys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  const aliceKeys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  const bob = new Person({
    id: new URL(BOB),
    inbox: new URL(`${BOB}/inbox`),
    publicKey: new CryptographicKey({ id: new URL(BOB_KEY), owner: new URL(BOB), publicKey: bobKeys.publicKey }),
  });
  const documents = new Map<string, unknown>([[BOB, await bob.toJsonLd()]]);
  const loader: DocumentLoader = async (url) => {
    const known = preloadedContexts[url] ?? documents.get(url.replace(/#.*$/, ""));
    if (known === undefined) throw new Error(`Not found: ${url}`);
    return { contextUrl: null, documentUrl: url, document: known };
  };
  const kv = new MemoryKvStore();
  const handled: string[] = [];
  const queued: Message[] = [];
  const queue: MessageQueue = {
    enqueue: async (message) => void queued.push(message as Message),
    enqueueMany: async (messages) => void queued.push(...(messages as Message[])),
    listen: (_handler, options) => new Promise((resolve) => options?.signal?.addEventListener("abort", () => resolve())),
  };
  const federation = createFederation<void>({
    kv,
    // As Kith gives it (kith-federation.ts): incoming activities are handled in their request, not queued.
    queue: { outbox: queue, fanout: queue },
    manuallyStartQueue: true,
    kvPrefixes: FEDIFY_KV_PREFIXES,
    documentLoaderFactory: () => loader,
    contextLoaderFactory: () => loader,
    authenticatedDocumentLoaderFactory: () => loader,
  });
  federation
    .setActorDispatcher("/users/{identifier}", (ctx, identifier) =>
      identifier === "alice" ? new Person({ id: ctx.getActorUri(identifier), inbox: ctx.getInboxUri(identifier) }) : null,
    )
    .setKeyPairsDispatcher((_ctx, identifier) => (identifier === "alice" ? [aliceKeys] : []));
  federation
    .setInboxListeners("/users/{identifier}/inbox", "/inbox")
    .on(Follow, (_ctx, follow) => void handled.push(follow.id?.href ?? ""))
    .withIdempotency(inboxIdempotenceKey);
  const post = async (activity: Activity, keyId = BOB_KEY): Promise<Response> => {
    const body = JSON.stringify(await activity.toJsonLd());
    const request = new Request(`${ORIGIN}/inbox`, {
      method: "POST",
      headers: { "content-type": "application/activity+json" },
      body,
    });
    return federation.fetch(await signRequest(request, bobKeys.privateKey, new URL(keyId)), { contextData: undefined });
  };
  return { federation, kv, handled, queued, post };
}

const followOf = (n: number): Follow => new Follow({ id: new URL(`${REMOTE}/follows/${n}`), actor: new URL(BOB), object: new URL(`${ORIGIN}/users/alice`) });

describe("Fedify's internals that Kith's speed-ups rely on", () => {
  let f: Fixture;
  let inbox: { server: Server; url: string; received: number };

  beforeAll(async () => {
    f = await fixture();
    const state = { received: 0 };
    const server = createServer((req, res) => {
      state.received++;
      req.resume();
      res.writeHead(202).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    inbox = {
      server,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/inbox`,
      get received() {
        return state.received;
      },
    };
  });

  afterAll(async () => {
    await new Promise((resolve) => inbox.server.close(resolve));
  });

  it("caches a fetched public key under kvPrefixes.publicKey in the form verified-keys.ts reads", async () => {
    expect((await f.post(followOf(1))).status).toBe(202);
    expect(f.handled).toEqual([`${REMOTE}/follows/1`]);
    const key = await new VerifiedKeys(f.kv).get(BOB_KEY);
    expect(key?.owner, "the key Fedify cached, as verified-keys.ts reads it").toBe(BOB);
    expect(key?.key.asymmetricKeyType).toBe("rsa");
  });

  it("marks a key it could not fetch with null under the same prefix (verified-keys.ts: unavailable)", async () => {
    const missing = `${REMOTE}/users/nobody#main-key`;
    expect((await f.post(followOf(2), missing)).status).toBe(401);
    expect(await f.kv.get([...FEDIFY_KV_PREFIXES.publicKey, missing])).toBeNull();
    expect(await new VerifiedKeys(f.kv).state(missing)).toBe("unavailable");
  });

  it("remembers a handled activity as true under kvPrefixes.activityIdempotence, and skips one remembered so", async () => {
    const remembered = (n: number): KvKey => [...FEDIFY_KV_PREFIXES.activityIdempotence, `${ORIGIN}\n${REMOTE}/follows/${n}\nsharedInbox`];
    expect(await f.kv.get(remembered(1)), "the entry Fedify wrote for the Follow it handled").toBe(true);
    // As the inbox front writes it for an activity it handled itself: Fedify then answers without handling it.
    await f.kv.set(remembered(3), true);
    const handled = f.handled.length;
    expect((await f.post(followOf(3))).status).toBe(202);
    expect(f.handled).toHaveLength(handled);
  });

  it("makes the inbox context of a request with RequestContext.toInboxContext, as its handler does", async () => {
    const request = new Request(`${ORIGIN}/inbox`, { method: "POST" });
    const ctx = f.federation.createContext(request, undefined) as unknown as Record<string, unknown>;
    expect(typeof ctx.toInboxContext, "RequestContext.toInboxContext").toBe("function");
    const json = await followOf(4).toJsonLd();
    const make = ctx.toInboxContext as (recipient: string | null, activity: unknown, id: string, type: string) => Record<string, unknown>;
    const inboxCtx = make.call(ctx, null, json, `${REMOTE}/follows/4`, "https://www.w3.org/ns/activitystreams#Follow");
    expect(inboxCtx.recipient).toBeNull();
    expect(typeof inboxCtx.forwardActivity).toBe("function");
    // The inbox front replaces the context's loader with its own: the property must be one it can define.
    Object.defineProperty(inboxCtx, "documentLoader", { value: "replaced", enumerable: true });
    expect(inboxCtx.documentLoader).toBe("replaced");
  });

  it("keeps a parsed object's document in _cachedJsonLd and returns it from toJsonLd (compact-activity.ts sets it)", async () => {
    const parsed = await Activity.fromJsonLd(await followOf(5).toJsonLd(), { documentLoader: preloadedLoader, contextLoader: preloadedLoader });
    expect("_cachedJsonLd" in parsed, "Activity._cachedJsonLd").toBe(true);
    expect((parsed as unknown as { _cachedJsonLd: unknown })._cachedJsonLd).toMatchObject({ id: `${REMOTE}/follows/5` });
    const document = { "@context": "https://www.w3.org/ns/activitystreams", id: `${REMOTE}/follows/5`, type: "Follow" };
    (parsed as unknown as { _cachedJsonLd: unknown })._cachedJsonLd = document;
    expect(await parsed.toJsonLd()).toBe(document);
  });

  it("queues one send as fresh outbox messages that batch-delivery.ts batches, and writes the form a server accepted", async () => {
    const ctx = f.federation.createContext(new URL(ORIGIN), undefined);
    const note = new Note({ id: new URL(`${ORIGIN}/notes/1`), attribution: ctx.getActorUri("alice"), content: "hello" });
    const create = new Create({ id: new URL(`${ORIGIN}/notes/1/activity`), actor: ctx.getActorUri("alice"), object: note });
    const recipients = [1, 2].map((n) => ({ id: new URL(`${REMOTE}/users/r${n}`), inboxId: new URL(`${inbox.url}?r=${n}`) }));
    await ctx.sendActivity({ identifier: "alice" }, recipients, create);
    const outbox = f.queued.filter((message) => message.type === "outbox");
    expect(outbox).toHaveLength(2);
    expect(batchOutboxMessages(f.queued, 100), "Fedify's queued deliveries, as batch-delivery.ts groups them").toHaveLength(1);
    // Fedify's delivery of one queued message remembers the form the server accepted (batch-delivery.ts reads it).
    await f.federation.processQueuedTask(undefined, outbox[0] as Message);
    expect(inbox.received).toBe(1);
    expect(await f.kv.get([...FEDIFY_KV_PREFIXES.httpMessageSignaturesSpec, new URL(inbox.url).origin])).toBe("rfc9421");
  });
});

const preloadedLoader: DocumentLoader = async (url) => {
  const document = preloadedContexts[url];
  if (document === undefined) throw new Error(`Not preloaded: ${url}`);
  return { contextUrl: null, documentUrl: url, document };
};
