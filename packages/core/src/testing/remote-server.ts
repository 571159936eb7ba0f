import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type HttpMessageSignaturesSpec, generateCryptoKeyPair, signJsonLd, signObject, signRequest, verifyRequest } from "@fedify/fedify";
import { Activity, CryptographicKey, Endpoints, Multikey, Person } from "@fedify/fedify/vocab";

/** An actor of the remote server, with the key pairs a test signs as it with. */
export interface RemoteActor {
  readonly name: string;
  readonly id: URL;
  readonly inbox: URL;
  readonly rsa: CryptoKeyPair;
  readonly rsaKeyId: URL;
  readonly ed25519: CryptoKeyPair;
  readonly ed25519KeyId: URL;
}

/** A request the remote server received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
  /** The body as it came (POSTs). */
  readonly rawBody?: string;
}

export interface SignOptions {
  /** @default "draft-cavage-http-signatures-12" */
  readonly spec?: HttpMessageSignaturesSpec;
  /** Signs with this actor's key instead of the activity actor's (a key that is not the claimed actor's). */
  readonly keyOf?: RemoteActor;
  /** Headers set before signing (a Date of another time, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The time the signature says it was made (its Date and RFC 9421 `created`). @default now */
  readonly signedAt?: Date;
}

type SignInstant = NonNullable<NonNullable<Parameters<typeof signRequest>[3]>["currentTime"]>;

/** The two things Fedify's signer reads of a `Temporal.Instant` (Node has no global Temporal). */
function instantOf(date: Date): SignInstant {
  return { epochMilliseconds: date.getTime(), toString: () => date.toISOString() } as unknown as SignInstant;
}

/**
 * Another ActivityPub server on a loopback port, for inbox and delivery
 * tests: it serves its actors' documents (RSA key and Ed25519 Multikey),
 * answers POSTs to its inboxes with the status `inboxStatus` gives (202 by
 * default) and records them, serves the documents a test gives it, and
 * signs requests and objects as its actors.
 * The server under test needs `allowPrivateAddress` to reach it.
 */
export interface RemoteServer {
  readonly origin: string;
  /** host:port */
  readonly host: string;
  readonly actors: Readonly<Record<string, RemoteActor>>;
  readonly received: ReceivedRequest[];
  /** The GETs of documents it answered or refused, in order (WebFinger's are in `webFingered`). */
  readonly fetched: ReceivedRequest[];
  /** The resources asked of its WebFinger, in order. */
  readonly webFingered: string[];
  /**
   * Refuses every GET of a document without an HTTP signature with 401, as
   * servers in secure ("authorized fetch") mode do; WebFinger still answers
   * unsigned, as theirs does.
   */
  requireSignedFetch: boolean;
  /** Serves `document` as `application/activity+json` at `path` (a Note, a collection page...). */
  serve(path: string, document: unknown): void;
  /**
   * Answers WebFinger for `resource` (`acct:name@host`) with `document`, or
   * with 404 when it is null. Without it, a resource is answered with a link
   * to the served actor of that `preferredUsername`, as a server answers for
   * its own accounts.
   */
  serveWebFinger(resource: string, document: unknown | null): void;
  /** The status of the next answer to a POST to `path`. */
  inboxStatus: (path: string) => number;
  /** A POST of `activity` to `url`, signed as `actor` (or as `options.keyOf`). */
  signedPost(url: string | URL, activity: unknown, actor: RemoteActor, options?: SignOptions): Promise<Request>;
  /** A GET of `url` as ActivityPub, signed as `actor` (or as `options.keyOf`, under `actor`'s key id when `keyOf` is given). */
  signedGet(url: string | URL, actor: RemoteActor, options?: SignOptions): Promise<Request>;
  /** The activity with an FEP-8b32 integrity proof by the actor's Ed25519 key. */
  withProof(activity: Record<string, unknown>, actor: RemoteActor): Promise<Record<string, unknown>>;
  /** The activity with a Linked Data signature (RsaSignature2017, as Mastodon signs what relays forward) by `signer`'s RSA key. */
  withLdSignature(activity: Record<string, unknown>, signer: RemoteActor): Promise<Record<string, unknown>>;
  /**
   * Serves a key document at `path` of this server whose `owner` is
   * `owner` (any actor, of any server: an owner is only the document's
   * word), and returns `signer` signing with that key instead of its own.
   */
  serveKeyClaiming(path: string, owner: URL, signer: RemoteActor): Promise<RemoteActor>;
  /**
   * Whether the HTTP signature of a POST it received verifies, as a server
   * would check it (Fedify's verifyRequest, either form); `fetchDocument`
   * fetches the signer's key document.
   */
  signatureVerifies(request: ReceivedRequest, fetchDocument: (url: string) => Promise<unknown>): Promise<boolean>;
  close(): Promise<void>;
}

async function actorDocument(actor: RemoteActor, sharedInbox: URL): Promise<unknown> {
  const person = new Person({
    id: actor.id,
    preferredUsername: actor.name,
    inbox: actor.inbox,
    endpoints: new Endpoints({ sharedInbox }),
    publicKey: new CryptographicKey({ id: actor.rsaKeyId, owner: actor.id, publicKey: actor.rsa.publicKey }),
    assertionMethods: [new Multikey({ id: actor.ed25519KeyId, controller: actor.id, publicKey: actor.ed25519.publicKey })],
  });
  return person.toJsonLd();
}

function readBody(req: import("node:http").IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startRemoteServer(names: readonly string[]): Promise<RemoteServer> {
  const documents = new Map<string, unknown>();
  const webFingers = new Map<string, unknown | null>();
  const received: ReceivedRequest[] = [];
  const fetched: ReceivedRequest[] = [];
  const webFingered: string[] = [];
  const state: { inboxStatus: (path: string) => number; requireSignedFetch: boolean } = {
    inboxStatus: () => 202,
    requireSignedFetch: false,
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      if (req.method === "POST") {
        const text = await readBody(req);
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {}
        received.push({ method: "POST", path, headers: req.headers, body, rawBody: text });
        res.writeHead(state.inboxStatus(path)).end();
        return;
      }
      if (path === "/.well-known/webfinger") {
        const resource = new URL(req.url ?? "/", "http://localhost").searchParams.get("resource") ?? "";
        webFingered.push(resource);
        const jrd = webFingerAnswer(resource);
        if (jrd === null) res.writeHead(404).end();
        else res.writeHead(200, { "content-type": "application/jrd+json" }).end(JSON.stringify(jrd));
        return;
      }
      fetched.push({ method: req.method ?? "GET", path, headers: req.headers, body: null });
      if (state.requireSignedFetch && !req.headers.signature && !req.headers["signature-input"]) {
        res.writeHead(401).end();
        return;
      }
      const document = documents.get(path);
      if (document === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/activity+json" }).end(JSON.stringify(document));
    })().catch(() => res.writeHead(500).end());
  });
  /** The JRD for `resource`: the one a test gave, else a link to the served actor of that name on this host. */
  const webFingerAnswer = (resource: string): unknown | null => {
    if (webFingers.has(resource)) return webFingers.get(resource) ?? null;
    const match = /^acct:([^@]+)@(.+)$/.exec(resource);
    if (!match || match[2] !== host) return null;
    for (const document of documents.values()) {
      const record = document as { id?: unknown; preferredUsername?: unknown };
      if (record?.preferredUsername !== match[1] || typeof record.id !== "string" || new URL(record.id).host !== host) continue;
      return { subject: resource, links: [{ rel: "self", type: "application/activity+json", href: record.id }] };
    }
    return null;
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  const origin = `http://${host}`;
  const sharedInbox = new URL("/inbox", origin);
  const actors: Record<string, RemoteActor> = {};
  for (const name of names) {
    const id = new URL(`/users/${name}`, origin);
    const actor: RemoteActor = {
      name,
      id,
      inbox: new URL(`/users/${name}/inbox`, origin),
      rsa: await generateCryptoKeyPair("RSASSA-PKCS1-v1_5"),
      rsaKeyId: new URL(`${id.href}#main-key`),
      ed25519: await generateCryptoKeyPair("Ed25519"),
      ed25519KeyId: new URL(`${id.href}#ed25519-key`),
    };
    actors[name] = actor;
    documents.set(id.pathname, await actorDocument(actor, sharedInbox));
  }
  return {
    origin,
    host,
    actors,
    received,
    fetched,
    webFingered,
    get requireSignedFetch() {
      return state.requireSignedFetch;
    },
    set requireSignedFetch(value) {
      state.requireSignedFetch = value;
    },
    serve(path, document) {
      documents.set(path, document);
    },
    serveWebFinger(resource, document) {
      webFingers.set(resource, document);
    },
    get inboxStatus() {
      return state.inboxStatus;
    },
    set inboxStatus(value) {
      state.inboxStatus = value;
    },
    async signedPost(url, activity, actor, options = {}) {
      const signer = options.keyOf ?? actor;
      const headers = new Headers({ "content-type": "application/activity+json", ...options.headers });
      const request = new Request(url, { method: "POST", headers, body: JSON.stringify(activity) });
      return signRequest(request, signer.rsa.privateKey, signer.rsaKeyId, {
        spec: options.spec ?? "draft-cavage-http-signatures-12",
        ...(options.signedAt && { currentTime: instantOf(options.signedAt) }),
      });
    },
    async signedGet(url, actor, options = {}) {
      const headers = new Headers({ accept: "application/activity+json", ...options.headers });
      const key = options.keyOf?.rsa.privateKey ?? actor.rsa.privateKey;
      return signRequest(new Request(url, { headers }), key, actor.rsaKeyId, {
        spec: options.spec ?? "draft-cavage-http-signatures-12",
        ...(options.signedAt && { currentTime: instantOf(options.signedAt) }),
      });
    },
    async withProof(activity, actor) {
      const object = await Activity.fromJsonLd(activity);
      const signed = await signObject(object, actor.ed25519.privateKey, actor.ed25519KeyId);
      return (await signed.toJsonLd({ format: "compact" })) as Record<string, unknown>;
    },
    async withLdSignature(activity, signer) {
      return (await signJsonLd(activity, signer.rsa.privateKey, signer.rsaKeyId, {})) as Record<string, unknown>;
    },
    async serveKeyClaiming(path, owner, signer) {
      const rsa = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
      const rsaKeyId = new URL(path, origin);
      const key = new CryptographicKey({ id: rsaKeyId, owner, publicKey: rsa.publicKey });
      documents.set(path, await key.toJsonLd({ format: "compact" }));
      return { ...signer, rsa, rsaKeyId };
    },
    async signatureVerifies(request, fetchDocument) {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
      const received = new Request(new URL(request.path, origin), { method: request.method, headers, body: request.rawBody ?? null });
      const documentLoader = async (url: string) => ({ contextUrl: null, document: await fetchDocument(url), documentUrl: url });
      return (await verifyRequest(received, { documentLoader })) !== null;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
