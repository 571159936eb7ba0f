import { z } from "zod";

/** A code went out by mail or SMS; the answer never carries the code. */
export const CodeSentJson = z.object({
  sent: z.literal(true),
  /** Where it went: the address or number being verified, or the masked current phone. */
  sentTo: z.string().optional(),
  expiresAt: z.string(),
});

/** One login method of the caller. */
export const LoginMethodJson = z.object({
  type: z.enum(["email", "phone"]),
  identifier: z.string(),
  verified: z.boolean(),
});

/** One entry of the login audit log. */
export const LoginAuditEntryJson = z.object({
  id: z.string(),
  accountId: z.string(),
  action: z.string(),
  method: z.string(),
  detail: z.string().nullable(),
  ip: z.string().nullable(),
  createdAt: z.string(),
});
