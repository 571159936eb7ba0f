import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { authenticated } from "../../platform/http/access.js";
import { CodeSentJson } from "../../mastodon/entities/credentials.js";
import { route } from "../core-route.js";

/**
 * The spec's four-step phone number change (its paths are "not shown"; these
 * are Kith's own): request, verify the current phone, submit the new number,
 * verify the new number.
 */
const TAGS = ["phone"];
const BASE = "/api/v1/accounts/phone/change";
const WRITE = ["write", "write:accounts"];
const Code = z.string().trim().min(1).max(64);

function userOf(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

export const phoneRoutes = [
  route({
    method: "POST",
    path: `${BASE}/request`,
    summary: "Step 1 of a phone change: texts a code to the current phone",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    response: CodeSentJson,
    handler: async ({ caller, services }) => {
      const sent = await services.phoneChange.request(userOf(caller).accountId);
      return { sent: true as const, sentTo: sent.sentTo, expiresAt: sent.expiresAt };
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/verify-current`,
    summary: "Step 2 of a phone change: the code texted to the current phone proves the caller holds it",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: z.object({ code: Code }),
    response: z.object({ verified: z.literal(true), expiresAt: z.string() }),
    handler: async ({ caller, body, services }) => {
      const { expiresAt } = await services.phoneChange.verifyCurrent(userOf(caller).accountId, body.code);
      return { verified: true as const, expiresAt };
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/new-number`,
    summary: "Step 3 of a phone change: the new number (international format, normalised to E.164) is texted a code",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: z.object({ phone: z.string().max(64) }),
    response: CodeSentJson,
    handler: async ({ caller, body, services }) => {
      const sent = await services.phoneChange.submitNew(userOf(caller).accountId, body.phone);
      return { sent: true as const, sentTo: sent.sentTo, expiresAt: sent.expiresAt };
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/verify-new`,
    summary: "Step 4 of a phone change: the code texted to the new number proves it; the new number replaces the old one",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: z.object({ code: Code }),
    response: z.object({ phone: z.string() }),
    handler: async ({ caller, body, services, clientIp }) =>
      services.phoneChange.verifyNew(userOf(caller).accountId, body.code, clientIp),
  }),
];
