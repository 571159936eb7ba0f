import { createHash, createSign, generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";

/**
 * A WebAuthn authenticator in software, for tests: a real P-256 key pair
 * (ES256), real CBOR (attestation "none", COSE key), real authenticator data
 * and real signatures, so the server's verification runs unmocked. Options
 * let a test lie the way an attacker would: another origin, another RP ID,
 * a counter that does not move.
 */

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [key: string]: Cbor };

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) {
    const buffer = Buffer.alloc(3);
    buffer[0] = (major << 5) | 25;
    buffer.writeUInt16BE(length, 1);
    return buffer;
  }
  const buffer = Buffer.alloc(5);
  buffer[0] = (major << 5) | 26;
  buffer.writeUInt32BE(length, 1);
  return buffer;
}

/** Encodes the small subset of CBOR WebAuthn uses (RFC 8949): integers, byte and text strings, arrays, maps. */
export function encodeCbor(value: Cbor): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(encodeCbor)]);
  const entries: [Cbor, Cbor][] = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([key, item]) => [encodeCbor(key), encodeCbor(item)])]);
}

const sha256 = (data: Uint8Array | string): Buffer => createHash("sha256").update(data).digest();
const b64url = (data: Uint8Array): string => Buffer.from(data).toString("base64url");

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface AuthenticatorLies {
  /** The origin the "browser" reports in client data. */
  readonly origin?: string;
  /** The RP ID whose hash goes in the authenticator data. */
  readonly rpId?: string;
  /** Sign with this counter instead of the next one. */
  readonly counter?: number;
  /** Sign another challenge than the one given. */
  readonly challenge?: string;
}

export type KeyValueEntries = Array<{ key: string; value: unknown }>;

/** The credential's JSON fields as the spec's key/value entries. */
export function toEntries(credential: Record<string, unknown>): KeyValueEntries {
  return Object.entries(credential).map(([key, value]) => ({ key, value }));
}

export class SoftwareAuthenticator {
  readonly credentialId: Buffer = randomBytes(32);
  readonly aaguid: Buffer = Buffer.alloc(16);
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;
  /** The signature counter; every assertion moves it on by one. */
  counter = 0;

  constructor(
    readonly origin: string,
    readonly rpId: string = new URL(origin).hostname,
  ) {
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.#privateKey = pair.privateKey;
    this.#publicKey = pair.publicKey;
  }

  get credentialIdBase64url(): string {
    return b64url(this.credentialId);
  }

  /** The public key as a COSE_Key map: kty EC2, alg ES256, crv P-256, x, y. */
  coseKey(): Buffer {
    const jwk = this.#publicKey.export({ format: "jwk" });
    const x = Buffer.from(jwk.x ?? "", "base64url");
    const y = Buffer.from(jwk.y ?? "", "base64url");
    return encodeCbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, x],
        [-3, y],
      ]),
    );
  }

  #authData(rpId: string, flags: number, counter: number, attested: Buffer | null): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  #clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), "utf8");
  }

  /** Answers begin-register's options with an attestation ("none"), as navigator.credentials.create would. */
  register(options: { challenge: string }, lies: AuthenticatorLies = {}): Record<string, unknown> {
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([this.aaguid, idLength, this.credentialId, this.coseKey()]);
    const authData = this.#authData(lies.rpId ?? this.rpId, FLAG_UP | FLAG_UV | FLAG_AT, lies.counter ?? this.counter, attested);
    const attestationObject = encodeCbor({ fmt: "none", attStmt: new Map(), authData });
    const clientData = this.#clientData("webauthn.create", lies.challenge ?? options.challenge, lies.origin ?? this.origin);
    return {
      id: this.credentialIdBase64url,
      rawId: this.credentialIdBase64url,
      type: "public-key",
      response: { clientDataJSON: b64url(clientData), attestationObject: b64url(attestationObject), transports: ["internal"] },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** Answers begin-auth's options with a signed assertion, as navigator.credentials.get would. */
  assert(options: { challenge: string }, lies: AuthenticatorLies = {}): Record<string, unknown> {
    if (lies.counter === undefined) this.counter += 1;
    const counter = lies.counter ?? this.counter;
    const authData = this.#authData(lies.rpId ?? this.rpId, FLAG_UP | FLAG_UV, counter, null);
    const clientData = this.#clientData("webauthn.get", lies.challenge ?? options.challenge, lies.origin ?? this.origin);
    // ES256 signatures are DER-encoded ECDSA over authenticatorData || SHA-256(clientDataJSON).
    const signature = createSign("SHA256")
      .update(Buffer.concat([authData, sha256(clientData)]))
      .sign(this.#privateKey);
    return {
      id: this.credentialIdBase64url,
      rawId: this.credentialIdBase64url,
      type: "public-key",
      response: { clientDataJSON: b64url(clientData), authenticatorData: b64url(authData), signature: b64url(signature), userHandle: null },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}
