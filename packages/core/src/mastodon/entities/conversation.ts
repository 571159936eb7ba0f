import { z } from "zod";
import { AccountJson } from "./account.js";
import { StatusJson } from "./status.js";

/** Mastodon's Conversation entity: a direct thread as one participant sees it. */
export const ConversationJson = z.object({
  id: z.string(),
  unread: z.boolean(),
  accounts: z.array(AccountJson),
  last_status: StatusJson.nullable(),
});

export type ConversationEntity = z.infer<typeof ConversationJson>;
