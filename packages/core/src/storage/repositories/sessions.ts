import type { Kysely } from "kysely";
import type { Database, SessionRow } from "../schema.js";

export interface NewSession {
  readonly id: string;
  readonly accountId: string | null;
  readonly appId: string | null;
  readonly tokenHash: string;
  readonly refreshTokenHash: string | null;
  readonly scopes: string;
  readonly userAgent: string | null;
  readonly ip: string | null;
  readonly createdAt: string;
  readonly expiresAt: string | null;
}

export async function insertSession(db: Kysely<Database>, session: NewSession): Promise<void> {
  await db
    .insertInto("sessions")
    .values({
      id: session.id,
      account_id: session.accountId,
      app_id: session.appId,
      token_hash: session.tokenHash,
      refresh_token_hash: session.refreshTokenHash,
      scopes: session.scopes,
      user_agent: session.userAgent,
      ip: session.ip,
      created_at: session.createdAt,
      last_used_at: null,
      expires_at: session.expiresAt,
      revoked_at: null,
    })
    .execute();
}

export async function findSessionByTokenHash(db: Kysely<Database>, tokenHash: string): Promise<SessionRow | null> {
  const row = await db.selectFrom("sessions").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  return row ?? null;
}

export async function touchSession(db: Kysely<Database>, id: string, at: string): Promise<void> {
  await db.updateTable("sessions").set({ last_used_at: at }).where("id", "=", id).execute();
}
