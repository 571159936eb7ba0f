import { canSignIn } from "../../domain/accounts.js";
import { type Caller, GUEST } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import type { Grant } from "../../domain/permissions.js";
import { findLocalAccountById } from "../../storage/repositories/accounts.js";
import { grantsOfActor } from "../../storage/repositories/roles.js";
import { findSessionByTokenHash, insertSession, touchSession } from "../../storage/repositories/sessions.js";
import type { ServiceDeps } from "../deps.js";
import { constantTimeEqual, hashSecret, newToken } from "./secrets.js";

/** `last_used_at` is written at most this often per session, so reads do not turn into writes. */
const TOUCH_INTERVAL_MS = 60_000;

export interface IssueSessionInput {
  readonly accountId: string | null;
  readonly appId?: string | null;
  readonly scopes: readonly string[];
  readonly userAgent?: string | null;
  readonly ip?: string | null;
  /** Seconds until the token expires; never when absent. */
  readonly expiresInSeconds?: number;
}

export interface IssuedSession {
  readonly sessionId: string;
  readonly accessToken: string;
  readonly scopes: readonly string[];
  readonly createdAt: string;
}

/** Access tokens: every token is a session. */
export class SessionService {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "random">) {}

  async issue(input: IssueSessionInput): Promise<IssuedSession> {
    const accessToken = newToken(this.deps.random);
    const now = this.deps.clock.now();
    const sessionId = this.deps.ids.next("session");
    await insertSession(this.deps.storage.db, {
      id: sessionId,
      accountId: input.accountId,
      appId: input.appId ?? null,
      tokenHash: hashSecret(accessToken),
      refreshTokenHash: null,
      scopes: input.scopes.join(" "),
      userAgent: input.userAgent ?? null,
      ip: input.ip ?? null,
      createdAt: now.toISOString(),
      expiresAt: input.expiresInSeconds ? new Date(now.getTime() + input.expiresInSeconds * 1000).toISOString() : null,
    });
    return { sessionId, accessToken, scopes: input.scopes, createdAt: now.toISOString() };
  }

  /**
   * The caller a bearer token stands for. No token: a guest. A token that is
   * unknown, revoked, expired, or whose account may not sign in: 401.
   */
  async authenticate(token: string | null): Promise<Caller> {
    if (token === null) return GUEST;
    const hash = hashSecret(token);
    const db = this.deps.storage.db;
    const session = await findSessionByTokenHash(db, hash);
    const now = this.deps.clock.now();
    if (
      !session ||
      !constantTimeEqual(session.token_hash, hash) ||
      session.revoked_at !== null ||
      (session.expires_at !== null && new Date(session.expires_at) <= now)
    ) {
      throw new KithError("auth.unauthenticated");
    }
    if (!session.last_used_at || now.getTime() - new Date(session.last_used_at).getTime() > TOUCH_INTERVAL_MS) {
      await touchSession(db, session.id, now.toISOString());
    }
    const scopes = session.scopes.split(" ").filter(Boolean);
    if (session.account_id === null) {
      if (!session.app_id) throw new KithError("auth.unauthenticated");
      return { kind: "app", appId: session.app_id, sessionId: session.id, scopes };
    }
    const account = await findLocalAccountById(db, session.account_id);
    if (!account || !canSignIn(account)) throw new KithError("auth.unauthenticated");
    const accountId = account.id;
    let grants: Promise<readonly Grant[]> | undefined;
    return {
      kind: "user",
      accountId,
      sessionId: session.id,
      scopes,
      grants: () => {
        grants ??= grantsOfActor(db, accountId);
        return grants;
      },
    };
  }
}
