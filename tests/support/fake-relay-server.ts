/**
 * `node fake-relay-server.ts`: an ActivityPub relay in a process of its own,
 * for federation tests, written from the relay protocol and not from Kith's
 * code (no Fedify): it signs and verifies draft-cavage HTTP signatures only,
 * as Activity-Relay and pub-relay do, so a server that knocks first with RFC
 * 9421 is answered 401 and has to fall back.
 *
 * It speaks both kinds of relay: a Follow of the public collection
 * subscribes a server Mastodon's way (the relay then forwards its
 * subscribers' activities as they came, their own signatures included); a
 * Follow of the relay's actor subscribes LitePub's way (the relay announces
 * the statuses it gets). An Undo of the Follow unsubscribes.
 *
 * Environment: RELAY_PORT, RELAY_TLS_CERT and RELAY_TLS_KEY (it serves
 * https://localhost:<port>), NODE_EXTRA_CA_CERTS to trust the servers it
 * talks to. It prints `relay listening on <origin>` when ready. Test-only
 * control endpoints under /control/ let a test read what it received and
 * choose how it answers Follows.
 */
import { createHash, createPublicKey, generateKeyPairSync, randomUUID, sign, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";

const port = Number(process.env.RELAY_PORT);
const host = `localhost:${port}`;
const origin = `https://${host}`;
const actorId = `${origin}/actor`;
const keyId = `${actorId}#main-key`;
const inboxUrl = `${origin}/inbox`;
const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
const AS_CONTEXT = "https://www.w3.org/ns/activitystreams";
/** How far a signature's Date may be from now, as Mastodon allows. */
const DATE_WINDOW_MS = 12 * 60 * 60 * 1000;

const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString();

type Json = Record<string, unknown>;
type AnswerMode = "accept" | "reject" | "hold";

/** A POST to the inbox, as the control endpoint reports it. */
interface Received {
  readonly type: string;
  readonly id: string | null;
  readonly actor: string | null;
  /** The object's id, or the object itself when it is a string. */
  readonly object: string | null;
  /** The status the relay answered: 202, or 401 for a signature it could not verify. */
  readonly status: number;
  /** The signing key of a verified signature. */
  readonly signer: string | null;
  /** Whether the body carried a Linked Data signature of its own (what lets a relay forward it). */
  readonly ldSigned: boolean;
  readonly body: unknown;
}

interface Subscriber {
  readonly actor: string;
  readonly inbox: string;
  readonly kind: "mastodon" | "litepub";
  readonly follow: Json;
}

const received: Received[] = [];
const subscribers = new Map<string, Subscriber>();
const held: { follow: Json; subscriber: Subscriber }[] = [];
const deliveries: { inbox: string; type: string; status: number }[] = [];
let answerMode: AnswerMode = "accept";

function actorDocument(): Json {
  return {
    "@context": [AS_CONTEXT, "https://w3id.org/security/v1"],
    id: actorId,
    type: "Application",
    preferredUsername: "relay",
    name: "Fake relay",
    inbox: inboxUrl,
    followers: `${origin}/followers`,
    endpoints: { sharedInbox: inboxUrl },
    publicKey: { id: keyId, owner: actorId, publicKeyPem },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function originOf(url: string): string {
  return new URL(url).origin;
}

function idOf(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && typeof (value as Json).id === "string") return (value as Json).id as string;
  return null;
}

async function fetchJson(url: string): Promise<Json | null> {
  const response = await fetch(url, { headers: { accept: "application/activity+json" } });
  if (!response.ok) return null;
  return (await response.json()) as Json;
}

/** The PEM of `keyId`, read from the document at its URL (an actor document naming the key, as servers serve them). */
async function publicKeyOf(signingKey: string): Promise<{ pem: string; owner: string } | null> {
  const document = await fetchJson(signingKey.split("#")[0] ?? signingKey);
  if (!document) return null;
  const keys = [document.publicKey].flat() as (Json | undefined)[];
  const key = document.id === signingKey ? document : keys.find((each) => each?.id === signingKey);
  if (!key || typeof key.publicKeyPem !== "string") return null;
  return { pem: key.publicKeyPem, owner: String(key.owner ?? document.id) };
}

function parseSignature(header: string): Record<string, string> | null {
  const fields: Record<string, string> = {};
  for (const match of header.matchAll(/(\w+)="([^"]*)"/g)) if (match[1] && match[2] !== undefined) fields[match[1]] = match[2];
  return fields.keyId && fields.signature && fields.headers ? fields : null;
}

/** The draft-cavage signature of a POST, verified; the key's owner, or null when it does not verify (or is another form). */
async function verifiedSigner(req: IncomingMessage, path: string, body: string): Promise<{ keyId: string; owner: string } | null> {
  const header = req.headers.signature;
  const fields = typeof header === "string" ? parseSignature(header) : null;
  if (!fields) return null;
  const date = Date.parse(String(req.headers.date ?? ""));
  if (Number.isNaN(date) || Math.abs(Date.now() - date) > DATE_WINDOW_MS) return null;
  const digest = `SHA-256=${createHash("sha256").update(body).digest("base64")}`;
  if (req.headers.digest !== digest) return null;
  const names = (fields.headers ?? "").split(" ");
  if (!names.includes("(request-target)") || !names.includes("digest")) return null;
  const lines = names.map((name) =>
    name === "(request-target)" ? `(request-target): post ${path}` : `${name}: ${String(req.headers[name] ?? "")}`,
  );
  const key = await publicKeyOf(fields.keyId ?? "");
  if (!key) return null;
  const ok = verify("sha256", Buffer.from(lines.join("\n")), createPublicKey(key.pem), Buffer.from(fields.signature ?? "", "base64"));
  return ok ? { keyId: fields.keyId ?? "", owner: key.owner } : null;
}

/** POSTs `body` to `inbox`, signed by the relay's key in draft-cavage form. */
async function deliver(inbox: string, body: string, type: string): Promise<void> {
  const url = new URL(inbox);
  const date = new Date().toUTCString();
  const digest = `SHA-256=${createHash("sha256").update(body).digest("base64")}`;
  const target = `post ${url.pathname}${url.search}`;
  const signingString = [`(request-target): ${target}`, `host: ${url.host}`, `date: ${date}`, `digest: ${digest}`].join("\n");
  const signature = sign("sha256", Buffer.from(signingString), privateKey).toString("base64");
  let status = 0;
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/activity+json",
        date,
        digest,
        signature: `keyId="${keyId}",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="${signature}"`,
      },
      body,
    });
    status = response.status;
  } catch {
    status = -1;
  }
  deliveries.push({ inbox, type, status });
}

function answer(follow: Json, subscriber: Subscriber, mode: "accept" | "reject"): Promise<void> {
  if (mode === "accept") subscribers.set(subscriber.actor, subscriber);
  const reply = {
    "@context": AS_CONTEXT,
    id: `${origin}/activities/${randomUUID()}`,
    type: mode === "accept" ? "Accept" : "Reject",
    actor: actorId,
    to: [subscriber.actor],
    object: { id: follow.id, type: "Follow", actor: follow.actor, object: follow.object },
  };
  return deliver(subscriber.inbox, JSON.stringify(reply), reply.type);
}

async function onFollow(activity: Json, actor: string): Promise<void> {
  const object = idOf(activity.object);
  const kind = object === PUBLIC ? "mastodon" : object === actorId ? "litepub" : null;
  const document = kind ? await fetchJson(actor) : null;
  if (!kind || !document) return;
  const endpoints = (document.endpoints ?? {}) as Json;
  const inbox = String(endpoints.sharedInbox ?? document.inbox ?? "");
  if (!inbox) return;
  const subscriber: Subscriber = { actor, inbox, kind, follow: activity };
  if (answerMode === "hold") held.push({ follow: activity, subscriber });
  else await answer(activity, subscriber, answerMode);
}

function onUndo(activity: Json, actor: string): void {
  const object = activity.object as Json | string;
  if (typeof object === "object" && object?.type === "Follow" && idOf(object.actor) === actor) subscribers.delete(actor);
}

/** Passes an activity of a subscribed server on to the other subscribers, each in the form of its kind. */
async function forward(activity: Json, raw: string, actor: string): Promise<void> {
  const type = String(activity.type);
  for (const subscriber of subscribers.values()) {
    if (originOf(subscriber.actor) === originOf(actor)) continue;
    if (subscriber.kind === "mastodon") {
      await deliver(subscriber.inbox, raw, type);
    } else if (type === "Create" || type === "Announce") {
      const announce = {
        "@context": AS_CONTEXT,
        id: `${origin}/activities/${randomUUID()}`,
        type: "Announce",
        actor: actorId,
        to: [`${origin}/followers`],
        object: idOf(activity.object),
      };
      await deliver(subscriber.inbox, JSON.stringify(announce), "Announce");
    }
  }
}

async function onInbox(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readBody(req);
  let activity: Json;
  try {
    activity = JSON.parse(raw) as Json;
  } catch {
    res.writeHead(400).end();
    return;
  }
  const signer = await verifiedSigner(req, "/inbox", raw);
  const actor = idOf(activity.actor);
  // The signer must be the actor, or a relay would pass on what anyone claims anyone said.
  const status = signer && actor && signer.owner === actor ? 202 : 401;
  received.push({
    type: String(activity.type),
    id: idOf(activity),
    actor,
    object: idOf(activity.object),
    status,
    signer: signer?.keyId ?? null,
    ldSigned: typeof activity.signature === "object" && activity.signature !== null,
    body: activity,
  });
  res.writeHead(status).end();
  if (status !== 202 || !actor) return;
  if (activity.type === "Follow") await onFollow(activity, actor);
  else if (activity.type === "Undo") onUndo(activity, actor);
  // A server subscribes as its instance actor; what any of its actors sends is passed on.
  else if ([...subscribers.values()].some((each) => originOf(each.actor) === originOf(actor))) await forward(activity, raw, actor);
}

async function onControl(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const json = (value: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
  if (path === "/control/state") {
    json({
      received,
      deliveries,
      held: held.length,
      subscribers: [...subscribers.values()].map(({ actor, inbox, kind }) => ({ actor, inbox, kind })),
    });
    return;
  }
  const body = JSON.parse((await readBody(req)) || "{}") as { mode?: AnswerMode; inbox?: string; activity?: Json };
  if (path === "/control/forward" && body.inbox && body.activity) {
    await deliver(body.inbox, JSON.stringify(body.activity), String(body.activity.type));
    json({ status: deliveries.at(-1)?.status ?? 0 });
    return;
  }
  if (path === "/control/mode" && body.mode) {
    answerMode = body.mode;
    json({ mode: answerMode });
    return;
  }
  if (path === "/control/answer-held" && (body.mode === "accept" || body.mode === "reject")) {
    const mode = body.mode;
    const waiting = held.splice(0);
    for (const { follow, subscriber } of waiting) await answer(follow, subscriber, mode);
    json({ answered: waiting.length });
    return;
  }
  res.writeHead(404).end();
}

const server = createServer(
  { cert: readFileSync(String(process.env.RELAY_TLS_CERT)), key: readFileSync(String(process.env.RELAY_TLS_KEY)) },
  (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", origin);
      if (url.pathname.startsWith("/control/")) return onControl(url.pathname, req, res);
      if (req.method === "POST" && url.pathname === "/inbox") return onInbox(req, res);
      if (req.method === "GET" && url.pathname === "/actor") {
        res.writeHead(200, { "content-type": "application/activity+json" }).end(JSON.stringify(actorDocument()));
        return;
      }
      if (req.method === "GET" && url.pathname === "/.well-known/webfinger" && url.searchParams.get("resource") === `acct:relay@${host}`) {
        const jrd = { subject: `acct:relay@${host}`, links: [{ rel: "self", type: "application/activity+json", href: actorId }] };
        res.writeHead(200, { "content-type": "application/jrd+json" }).end(JSON.stringify(jrd));
        return;
      }
      res.writeHead(404).end();
    })().catch((error: unknown) => {
      process.stderr.write(`relay error: ${String(error)}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  },
);
server.listen(port, "127.0.0.1", () => process.stdout.write(`relay listening on ${origin}\n`));
process.on("SIGTERM", () => {
  server.close(() => process.exit(0));
  // Servers keep their connections to it alive; they are not waited for.
  server.closeAllConnections();
});
