// draft-cavage HTTP signatures (the form Mastodon sends) with node:crypto
// alone: what the baselines of the federation scenarios cost, and how the
// inbox load generator signs its requests. RSASSA-PKCS1-v1_5 with SHA-256
// over (request-target), host, date, digest and content-type.

import { createHash, createPublicKey, generateKeyPair, sign, verify } from "node:crypto";

const SIGNED = ["(request-target)", "host", "date", "digest", "content-type"];

/** `count` RSA 2048 key pairs as PEM, generated in parallel (the thread pool does the work). */
export async function rsaKeyPairs(count) {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise((resolve, reject) =>
          generateKeyPair(
            "rsa",
            {
              modulusLength: 2048,
              publicKeyEncoding: { type: "spki", format: "pem" },
              privateKeyEncoding: { type: "pkcs8", format: "pem" },
            },
            (error, publicKey, privateKey) => (error ? reject(error) : resolve({ publicKey, privateKey })),
          ),
        ),
    ),
  );
}

function signingString(method, path, headers) {
  return SIGNED.map((name) =>
    name === "(request-target)" ? `${name}: ${method.toLowerCase()} ${path}` : `${name}: ${headers[name]}`,
  ).join("\n");
}

/** The headers of a signed POST of `body` to `path` on `host`. */
export function signedHeaders({ host, path, body, keyId, privateKey, date = new Date() }) {
  const headers = {
    host,
    date: date.toUTCString(),
    digest: `SHA-256=${createHash("sha256").update(body).digest("base64")}`,
    "content-type": "application/activity+json",
  };
  const signature = sign("sha256", Buffer.from(signingString("POST", path, headers)), privateKey).toString("base64");
  headers.signature = `keyId="${keyId}",algorithm="rsa-sha256",headers="${SIGNED.join(" ")}",signature="${signature}"`;
  return headers;
}

/**
 * Checks a signed request as an inbox would: the digest matches the body, the
 * signature covers the required headers and verifies with the key `keyFor`
 * gives for its keyId. Returns the keyId, or null when it does not verify.
 */
export function verifySigned({ method, path, headers, body }, keyFor) {
  const parameters = Object.fromEntries(
    [...String(headers.signature ?? "").matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]),
  );
  const key = parameters.keyId ? keyFor(parameters.keyId) : null;
  if (!key || !parameters.signature || !parameters.headers) return null;
  const covered = parameters.headers.split(" ");
  if (!SIGNED.every((name) => covered.includes(name))) return null;
  if (headers.digest !== `SHA-256=${createHash("sha256").update(body).digest("base64")}`) return null;
  const text = covered
    .map((name) => (name === "(request-target)" ? `${name}: ${method.toLowerCase()} ${path}` : `${name}: ${headers[name]}`))
    .join("\n");
  return verify("sha256", Buffer.from(text), key, Buffer.from(parameters.signature, "base64")) ? parameters.keyId : null;
}

export const publicKeyObject = (pem) => createPublicKey(pem);
