// Other ActivityPub servers for the federation scenarios, in one process of
// their own: `hosts` node:http servers on loopback ports, each a separate
// host (origin) to Kith, each serving the documents of its actors (with
// their RSA public keys) and a shared inbox plus personal inboxes. A POST to
// an inbox is verified as a real server would (Fedify's verifyRequest: both
// draft-cavage and RFC 9421 signatures, the signer's key fetched over
// loopback and then cached) and answered 202, or 401 when it does not verify.
//
//   node bench/lib/remote-hosts.mjs <spec.json>
//   spec: { hosts, actorsPerHost, keys: [{ publicKey, privateKey }] }
//
// Prints one JSON line: { control, hosts: [origin, ...] }. The control port
// answers GET /deliveries (what arrived, verified or not, with the time in
// epoch milliseconds; ?bodies adds the bodies), GET /wait?hosts=N&timeoutMs=T
// (the same, once N hosts have verified a delivery or T ms have passed: one
// request instead of polling, so that the waiting costs no CPU while a round
// runs), GET /stats (how many documents were served), POST /reset, and POST
// /prewarm?keyId=... (fetches and caches a key, as a server that has seen its
// owner before would have it).

import { readFileSync } from "node:fs";
import http from "node:http";
import { fedify } from "./fedify.mjs";

const { verifyRequest, fetchKey, CryptographicKey } = await fedify();

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const documents = new Map();
const deliveries = [];
let documentsServed = 0;
/** The hosts that have verified a delivery since the last reset. */
const verifiedHosts = new Set();
/** Requests of GET /wait not answered yet: each with the hosts it waits for and its answer. */
const waiters = new Set();
const keys = new Map();
const keyCache = {
  get: async (keyId) => keys.get(keyId.href),
  set: async (keyId, key) => {
    keys.set(keyId.href, key);
  },
};

/** Fetches JSON-LD documents over loopback (private addresses are the point here). */
async function documentLoader(url) {
  const local = documents.get(url);
  if (local) return { contextUrl: null, document: local, documentUrl: url };
  const response = await fetch(url, { headers: { accept: "application/activity+json" } });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return { contextUrl: null, document: await response.json(), documentUrl: response.url || url };
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

function actorDocument(origin, name, key) {
  const id = `${origin}/users/${name}`;
  return {
    "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
    id,
    type: "Person",
    preferredUsername: name,
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    followers: `${id}/followers`,
    endpoints: { sharedInbox: `${origin}/inbox` },
    publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: key.publicKey },
  };
}

async function receive(origin, request, response) {
  const body = await readBody(request);
  const url = new URL(request.url, origin);
  let type = null;
  try {
    type = JSON.parse(body.toString("utf8")).type ?? null;
  } catch {}
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
  const key = await verifyRequest(new Request(url, { method: "POST", headers, body }), { documentLoader, keyCache }).catch(() => null);
  deliveries.push({
    at: performance.timeOrigin + performance.now(),
    host: url.host,
    path: url.pathname,
    type,
    verified: key !== null,
    body: body.toString("utf8"),
  });
  response.writeHead(key ? 202 : 401).end();
  if (!key) return;
  verifiedHosts.add(url.host);
  for (const waiter of waiters) if (verifiedHosts.size >= waiter.hosts) waiter.answer();
}

/** Names the actor `acct:name@host` as its account, as the server under test checks before it keeps a new actor. */
function answerWebFinger(origin, url, response) {
  const match = /^acct:([^@]+)@(.+)$/.exec(url.searchParams.get("resource") ?? "");
  const id = match && match[2] === url.host ? `${origin}/users/${match[1]}` : null;
  if (!id || !documents.has(id)) return response.writeHead(404).end();
  const jrd = { subject: `acct:${match[1]}@${url.host}`, links: [{ rel: "self", type: "application/activity+json", href: id }] };
  response.writeHead(200, { "content-type": "application/jrd+json" }).end(JSON.stringify(jrd));
}

async function startHost(index) {
  const server = http.createServer((request, response) => {
    const origin = `http://${request.headers.host}`;
    if (request.method === "POST") {
      receive(origin, request, response).catch(() => response.writeHead(500).end());
      return;
    }
    const url = new URL(request.url, origin);
    if (url.pathname === "/.well-known/webfinger") return answerWebFinger(origin, url, response);
    documentsServed++;
    const document = documents.get(`${origin}${request.url}`);
    if (!document) return response.writeHead(404).end();
    response.writeHead(200, { "content-type": "application/activity+json" }).end(JSON.stringify(document));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  for (let a = 0; a < spec.actorsPerHost; a++) {
    const name = `a${a}`;
    const key = spec.keys[(index * spec.actorsPerHost + a) % spec.keys.length];
    documents.set(`${origin}/users/${name}`, actorDocument(origin, name, key));
  }
  // The sender of the bare delivery baseline lives on the first host.
  if (index === 0) documents.set(`${origin}/users/baseline`, actorDocument(origin, "baseline", spec.keys[0]));
  return origin;
}

const hosts = [];
for (let i = 0; i < spec.hosts; i++) hosts.push(await startHost(i));

function answerDeliveries(response, withBodies) {
  const answer = deliveries.map(({ body, ...rest }) => (withBodies ? { ...rest, body } : rest));
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
}

/** GET /wait: answers with the deliveries once `hosts` hosts have verified one, or after `timeoutMs`. */
function wait(url, response) {
  const hosts = Number(url.searchParams.get("hosts"));
  const waiter = {
    hosts,
    answer() {
      waiters.delete(waiter);
      clearTimeout(timer);
      answerDeliveries(response, false);
    },
  };
  const timer = setTimeout(() => waiter.answer(), Number(url.searchParams.get("timeoutMs") ?? 60_000));
  waiters.add(waiter);
  if (verifiedHosts.size >= hosts) waiter.answer();
}

const control = http.createServer((request, response) => {
  const url = new URL(request.url, "http://control");
  if (url.pathname === "/deliveries") {
    answerDeliveries(response, url.searchParams.has("bodies"));
  } else if (url.pathname === "/wait") {
    wait(url, response);
  } else if (url.pathname === "/stats") {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ documentsServed }));
  } else if (url.pathname === "/reset") {
    deliveries.length = 0;
    verifiedHosts.clear();
    response.writeHead(204).end();
  } else if (url.pathname === "/prewarm") {
    fetchKey(new URL(url.searchParams.get("keyId")), CryptographicKey, { documentLoader, keyCache })
      .then((result) => response.writeHead(result.key ? 204 : 502).end())
      .catch(() => response.writeHead(502).end());
  } else {
    response.writeHead(404).end();
  }
});
await new Promise((resolve) => control.listen(0, "127.0.0.1", resolve));
process.stdout.write(`${JSON.stringify({ control: `http://127.0.0.1:${control.address().port}`, hosts })}\n`);
