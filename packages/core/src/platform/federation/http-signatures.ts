import { type JsonWebKey as NodeJsonWebKey, type KeyObject, createHash, createPrivateKey, sign } from "node:crypto";

/** The two HTTP signature forms servers accept: RFC 9421 (HTTP Message Signatures) and the draft-cavage one Mastodon made common. */
export type SignatureSpec = "rfc9421" | "draft-cavage-http-signatures-12";

/** An RSA key (RSASSA-PKCS1-v1_5 with SHA-256) to sign with, and the id servers fetch its public half by. */
export interface SignatureKey {
  readonly keyId: string;
  readonly privateKey: KeyObject;
}

/** A body to POST, with its SHA-256 digest made once for every request that carries it. */
export interface SignedBody {
  readonly bytes: Uint8Array;
  readonly sha256: string;
}

/** The RSA key of a private JWK, or null when it is not one (an Ed25519 key, say). */
export function rsaSignatureKey(keyId: string, jwk: JsonWebKey): SignatureKey | null {
  if (jwk.kty !== "RSA" || (jwk.alg !== undefined && jwk.alg !== "RS256")) return null;
  return { keyId, privateKey: createPrivateKey({ key: jwk as NodeJsonWebKey, format: "jwk" }) };
}

export function signedBody(bytes: Uint8Array): SignedBody {
  return { bytes, sha256: createHash("sha256").update(bytes).digest("base64") };
}

/** RSASSA-PKCS1-v1_5 over SHA-256, on libuv's thread pool (a 4096-bit key takes over a millisecond). */
function rsaSign(data: string, key: KeyObject): Promise<string> {
  return new Promise((resolve, reject) => {
    sign("sha256", Buffer.from(data, "utf8"), key, (error, signature) => (error ? reject(error) : resolve(signature.toString("base64"))));
  });
}

/** A structured-field string (RFC 8941): printable ASCII, quoted, with `"` and `\` escaped. */
function sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new TypeError(`Not a structured-field string: ${value}`);
  return `"${value.replace(/[\\"]/g, "\\$&")}"`;
}

/**
 * RFC 9421: the method, target URI, authority, Host, Date and Content-Digest
 * covered, under the label sig1 with its creation time, as Fedify signs.
 */
async function signRfc9421(url: URL, headers: Record<string, string>, body: SignedBody, key: SignatureKey, now: Date): Promise<void> {
  headers["content-digest"] = `sha-256=:${body.sha256}:`;
  const covered = ["@method", "@target-uri", "@authority", "host", "date", "content-digest"];
  const values: Record<string, string> = {
    "@method": "POST",
    "@target-uri": url.href,
    "@authority": url.host,
    host: url.host,
    date: now.toUTCString(),
    "content-digest": headers["content-digest"],
  };
  const parameters = `(${covered.map((name) => `"${name}"`).join(" ")});alg="rsa-v1_5-sha256";keyid=${sfString(key.keyId)};created=${Math.floor(now.getTime() / 1000)}`;
  const base = [...covered.map((name) => `"${name}": ${values[name]}`), `"@signature-params": ${parameters}`].join("\n");
  headers["signature-input"] = `sig1=${parameters}`;
  headers.signature = `sig1=:${await rsaSign(base, key.privateKey)}:`;
}

/** draft-cavage-http-signatures-12: the request target and every header of the request covered (rsa-sha256). */
async function signCavage(url: URL, headers: Record<string, string>, body: SignedBody, key: SignatureKey): Promise<void> {
  headers.digest = `SHA-256=${body.sha256}`;
  const covered = ["(request-target)", ...Object.keys(headers)];
  // The path without its query, as Fedify signs and verifies it (inboxes seldom have one).
  const target = `post ${url.pathname}`;
  const lines = covered.map((name) => `${name}: ${name === "(request-target)" ? target : headers[name]?.trim()}`);
  const signature = await rsaSign(lines.join("\n"), key.privateKey);
  headers.signature = `keyId="${key.keyId}",algorithm="rsa-sha256",headers="${covered.join(" ")}",signature="${signature}"`;
}

/**
 * The headers of a POST of `body` to `url`, signed in `spec`: the given ones
 * (their names put in lower case), with Host, Date, the body's digest and the
 * signature added. Headers sent but not to be covered (User-Agent) are added
 * after.
 */
export async function signedPostHeaders(
  url: URL,
  given: Readonly<Record<string, string>>,
  body: SignedBody,
  key: SignatureKey,
  spec: SignatureSpec,
  now: Date,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) headers[name.toLowerCase()] = value;
  headers.host = url.host;
  headers.date = now.toUTCString();
  if (spec === "rfc9421") await signRfc9421(url, headers, body, key, now);
  else await signCavage(url, headers, body, key);
  return headers;
}
