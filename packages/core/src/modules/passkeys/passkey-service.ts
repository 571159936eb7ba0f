import type { AuthenticatorTransport, VerifiedRegistrationResponse } from "@simplewebauthn/server";
import { canSignIn } from "../../domain/accounts.js";
import { KithError, isKithError } from "../../domain/errors.js";
import { ALL_SCOPES } from "../../domain/scopes.js";
import { findLocalAccountById, findLocalAccountByUsername } from "../accounts/accounts-store.js";
import { insertOneTimeSecret } from "../auth/one-time-secrets-store.js";
import {
  type PasskeyCredentialRow,
  advanceSignCount,
  deletePasskeyOfAccount,
  findPasskeyByCredentialId,
  insertPasskeyCredential,
  listPasskeysOfAccount,
} from "./passkey-credentials-store.js";
import type { SessionService } from "../auth/session-service.js";
import { hashSecret } from "../auth/secrets.js";
import type { ServiceDeps } from "../service-deps.js";
import type { LoginAudit } from "../credentials/login-audit.js";
import type { AccessBlocks } from "../registration/index.js";
import { type KeyValueEntry, authenticationResponseOf, challengeOf, registrationResponseOf } from "./passkey-responses.js";
import { relyingPartyOf } from "./relying-party.js";
import { requireLocalAccount } from "../accounts/require-local-account.js";

/** WebAuthn's verifiers and certificate parsers load with the first passkey ceremony, not with the server. */
const webauthn = () => import("@simplewebauthn/server");

export const PASSKEY_REGISTER_CHALLENGE = "passkey.register";
export const PASSKEY_AUTH_CHALLENGE = "passkey.auth";
/** How long a challenge can be answered; the browser's own timeout is the same. */
export const PASSKEY_CHALLENGE_TTL_SECONDS = 5 * 60;
/** COSE algorithms offered: ES256, EdDSA, RS256. */
const ALGORITHMS = [-7, -8, -257];
/** COSE key parameter holding the algorithm. */
const COSE_ALG = 3;

/** The spec's "Passkey credential". */
export interface PasskeyCredential {
  readonly credentialId: string;
  readonly accountId: string;
  readonly userId: string;
  readonly publicKeyCose: string;
  readonly publicKeyAlg: number;
  readonly aaguid: string;
  readonly signCount: number;
}

export interface CredentialDescriptor {
  readonly id: string;
  readonly type: "public-key";
  readonly transports?: string[];
}

/** The spec's authentication options (begin-auth). */
export interface AuthenticationOptions {
  readonly challenge: string;
  readonly timeout: number;
  readonly rpId: string;
  readonly allowCredentials: CredentialDescriptor[];
  readonly userVerification: string;
  readonly extensions: Record<string, unknown>;
}

/** The spec's registration options (begin-register). */
export interface RegistrationOptions {
  readonly challenge: string;
  readonly rp: { id: string; name: string };
  readonly user: { id: string; name: string; displayName: string };
  readonly pubKeyCredParams: Array<{ type: "public-key"; alg: number }>;
  readonly timeout: number;
  readonly attestation: string;
  readonly authenticatorSelection: {
    authenticatorAttachment: string;
    requireResidentKey: boolean;
    residentKey: string;
    userVerification: string;
  };
  readonly excludeCredentials: CredentialDescriptor[];
  readonly extensions: Record<string, unknown>;
}

export interface PasskeySignInContext {
  readonly userAgent?: string | null;
  readonly ip?: string | null;
}

function toCredential(row: PasskeyCredentialRow): PasskeyCredential {
  return {
    credentialId: row.credential_id,
    accountId: row.account_id,
    userId: row.account_id,
    publicKeyCose: row.public_key_cose,
    publicKeyAlg: Number(row.public_key_alg),
    aaguid: row.aaguid,
    signCount: Number(row.sign_count),
  };
}

function descriptor(row: PasskeyCredentialRow): CredentialDescriptor {
  const transports = JSON.parse(row.transports) as string[];
  return { id: row.credential_id, type: "public-key", ...(transports.length > 0 && { transports }) };
}

/**
 * Passkeys on @simplewebauthn/server. Challenges are one-time secrets
 * (consumed atomically before verification, so a replay finds nothing),
 * expiring by the clock port. The origin and RP ID come from the server's
 * configured origin. A signature counter that does not increase is refused
 * as a cloned authenticator; authenticators that never count (always 0)
 * pass, as WebAuthn allows.
 */
export class PasskeyService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "config">,
    private readonly sessions: SessionService,
    private readonly audit: LoginAudit,
    private readonly blocks: Pick<AccessBlocks, "addressAllowed">,
  ) {}

  get #rp() {
    return relyingPartyOf(this.deps.config);
  }

  async #storeChallenge(kind: string, challenge: string, subjectId: string | null): Promise<void> {
    const now = this.deps.clock.now();
    await insertOneTimeSecret(this.deps.storage.db, {
      id: this.deps.ids.next("secret"),
      kind,
      secretHash: hashSecret(challenge),
      subjectId,
      payload: null,
      expiresAt: new Date(now.getTime() + PASSKEY_CHALLENGE_TTL_SECONDS * 1000).toISOString(),
      createdAt: now.toISOString(),
    });
  }

  /** Takes the stored challenge the client data names, once; unknown, expired or used ones are refused. */
  async #takeChallenge(kind: string, clientDataJSON: string): Promise<{ challenge: string; subjectId: string | null }> {
    const challenge = challengeOf(clientDataJSON);
    const row = await this.deps.storage.consumeOnce({ kind, secretHash: hashSecret(challenge), now: this.deps.clock.now() });
    if (!row) throw new KithError("passkey.challenge_invalid");
    return { challenge, subjectId: row.subject_id };
  }

  async list(accountId: string): Promise<PasskeyCredential[]> {
    return (await listPasskeysOfAccount(this.deps.storage.db, accountId)).map(toCredential);
  }

  async beginRegister(accountId: string): Promise<RegistrationOptions> {
    const account = await requireLocalAccount(this.deps.storage.db, accountId);
    const existing = await listPasskeysOfAccount(this.deps.storage.db, accountId);
    const rp = this.#rp;
    const { generateRegistrationOptions } = await webauthn();
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: account.username,
      userID: new TextEncoder().encode(account.id),
      userDisplayName: account.displayName || account.username,
      timeout: PASSKEY_CHALLENGE_TTL_SECONDS * 1000,
      attestationType: "none",
      excludeCredentials: existing.map((row) => {
        const { id, transports } = descriptor(row);
        return { id, ...(transports && { transports }) };
      }),
      authenticatorSelection: { authenticatorAttachment: "platform", requireResidentKey: false, residentKey: "preferred", userVerification: "preferred" },
      extensions: { credProps: true },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    await this.#storeChallenge(PASSKEY_REGISTER_CHALLENGE, options.challenge, accountId);
    return {
      challenge: options.challenge,
      rp: { id: rp.id, name: rp.name },
      user: { id: options.user.id, name: options.user.name, displayName: options.user.displayName },
      pubKeyCredParams: ALGORITHMS.map((alg) => ({ type: "public-key" as const, alg })),
      timeout: options.timeout ?? PASSKEY_CHALLENGE_TTL_SECONDS * 1000,
      attestation: options.attestation ?? "none",
      authenticatorSelection: { authenticatorAttachment: "platform", requireResidentKey: false, residentKey: "preferred", userVerification: "preferred" },
      excludeCredentials: existing.map(descriptor),
      extensions: { credProps: true },
    };
  }

  async finishRegister(accountId: string, entries: readonly KeyValueEntry[], ip: string | null): Promise<PasskeyCredential> {
    const response = registrationResponseOf(entries);
    const { challenge, subjectId } = await this.#takeChallenge(PASSKEY_REGISTER_CHALLENGE, response.response.clientDataJSON);
    if (subjectId !== accountId) throw new KithError("passkey.challenge_invalid");
    const rp = this.#rp;
    const { verifyRegistrationResponse } = await webauthn();
    let verified: VerifiedRegistrationResponse;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: false,
        supportedAlgorithmIDs: ALGORITHMS,
      });
    } catch (error) {
      throw new KithError("passkey.verification_failed", { message: `The passkey could not be verified: ${messageOf(error)}`, cause: error });
    }
    if (!verified.verified) throw new KithError("passkey.verification_failed");
    const { credential, aaguid } = verified.registrationInfo;
    const db = this.deps.storage.db;
    if (await findPasskeyByCredentialId(db, credential.id)) throw new KithError("passkey.already_registered");
    const { decodeCredentialPublicKey } = await import("@simplewebauthn/server/helpers");
    const algorithm = decodeCredentialPublicKey(credential.publicKey).get(COSE_ALG);
    try {
      await insertPasskeyCredential(db, {
        id: this.deps.ids.next("passkey"),
        credentialId: credential.id,
        accountId,
        publicKeyCose: Buffer.from(credential.publicKey).toString("base64url"),
        publicKeyAlg: typeof algorithm === "number" ? algorithm : -7,
        aaguid,
        signCount: credential.counter,
        transports: credential.transports ?? response.response.transports ?? [],
        createdAt: this.deps.clock.now().toISOString(),
      });
    } catch (error) {
      // A concurrent registration of the same credential: the unique index decides.
      throw new KithError("passkey.already_registered", { cause: error });
    }
    await this.audit.record({ accountId, action: "passkey.added", method: "passkey", detail: credential.id.slice(0, 16), ip });
    const row = await findPasskeyByCredentialId(db, credential.id);
    if (!row) throw new Error("Passkey vanished after registration");
    return toCredential(row);
  }

  /**
   * Options for signing in as `username`. An unknown name gets options of the
   * same shape (no credentials to offer), so the answer does not tell which
   * names exist; its challenge can sign nobody in.
   */
  async beginAuth(username: string): Promise<AuthenticationOptions> {
    const account = await findLocalAccountByUsername(this.deps.storage.db, username).catch(() => null);
    const rows = account ? await listPasskeysOfAccount(this.deps.storage.db, account.id) : [];
    const rp = this.#rp;
    const allowCredentials = rows.map(descriptor);
    const { generateAuthenticationOptions } = await webauthn();
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      allowCredentials: allowCredentials.map(({ id, transports }) => ({
        id,
        ...(transports && { transports: transports as AuthenticatorTransport[] }),
      })),
      timeout: PASSKEY_CHALLENGE_TTL_SECONDS * 1000,
      userVerification: "preferred",
    });
    await this.#storeChallenge(PASSKEY_AUTH_CHALLENGE, options.challenge, account?.id ?? null);
    return {
      challenge: options.challenge,
      timeout: options.timeout ?? PASSKEY_CHALLENGE_TTL_SECONDS * 1000,
      rpId: rp.id,
      allowCredentials,
      userVerification: options.userVerification ?? "preferred",
      extensions: {},
    };
  }

  /** Verifies an assertion and returns the account it signs in; used by finish-auth and the authorize page. */
  async verifyAssertion(entries: readonly KeyValueEntry[]): Promise<string> {
    const response = authenticationResponseOf(entries);
    const { challenge, subjectId } = await this.#takeChallenge(PASSKEY_AUTH_CHALLENGE, response.response.clientDataJSON);
    const db = this.deps.storage.db;
    const stored = await findPasskeyByCredentialId(db, response.id);
    // The challenge was issued for one account: only that account's credentials answer it.
    if (!stored || subjectId === null || stored.account_id !== subjectId) throw new KithError("passkey.verification_failed");
    const rp = this.#rp;
    const previous = Number(stored.sign_count);
    const { verifyAuthenticationResponse } = await webauthn();
    let newCounter: number;
    try {
      const verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        // The counter is judged below, after the signature, with our own error.
        credential: { id: stored.credential_id, publicKey: Buffer.from(stored.public_key_cose, "base64url"), counter: 0 },
        requireUserVerification: false,
      });
      if (!verified.verified) throw new Error("signature not verified");
      newCounter = verified.authenticationInfo.newCounter;
    } catch (error) {
      if (isKithError(error)) throw error;
      throw new KithError("passkey.verification_failed", { message: `The passkey could not be verified: ${messageOf(error)}`, cause: error });
    }
    if ((previous > 0 || newCounter > 0) && newCounter <= previous) throw new KithError("passkey.cloned_authenticator");
    const now = this.deps.clock.now().toISOString();
    if (!(await advanceSignCount(db, stored.credential_id, previous, newCounter, now))) throw new KithError("passkey.cloned_authenticator");
    const account = await findLocalAccountById(db, stored.account_id);
    if (!account || !canSignIn(account)) throw new KithError("auth.unauthenticated", { message: "This account cannot sign in" });
    return account.id;
  }

  /** finish-auth: a verified assertion becomes a session; its access token is the `sessionKey`. */
  async finishAuth(entries: readonly KeyValueEntry[], context: PasskeySignInContext): Promise<{ sessionKey: string }> {
    if (!(await this.blocks.addressAllowed(context.ip ?? null))) throw new KithError("auth.address_blocked");
    const accountId = await this.verifyAssertion(entries);
    const issued = await this.sessions.issue({ accountId, scopes: ALL_SCOPES, userAgent: context.userAgent ?? null, ip: context.ip ?? null });
    return { sessionKey: issued.accessToken };
  }

  /** Deletes one of the owner's passkeys; another account's is not found, as if it did not exist. */
  async delete(accountId: string, credentialId: string, ip: string | null): Promise<void> {
    if ((await deletePasskeyOfAccount(this.deps.storage.db, accountId, credentialId)) === 0) throw new KithError("passkey.not_found");
    await this.audit.record({ accountId, action: "passkey.removed", method: "passkey", detail: credentialId.slice(0, 16), ip });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
