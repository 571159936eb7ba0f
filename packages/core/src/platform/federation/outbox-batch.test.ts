import { describe, expect, it } from "vitest";
import { OUTBOX_BATCH_TYPE, type OutboxMessage, batchOutboxMessages, isOutboxBatch, outboxMessagesOf } from "./outbox-batch.js";

/** The messages Fedify makes for one send: shared objects, one inbox each (`started` ticking on between them). */
function send(inboxes: readonly string[], changes: Partial<OutboxMessage> = {}): OutboxMessage[] {
  const shared = {
    type: "outbox" as const,
    baseUrl: "https://kith.example",
    keys: [{ keyId: "https://kith.example/users/alice#main-key", privateKey: { kty: "RSA" } }],
    activity: { type: "Create", id: "https://kith.example/users/alice/statuses/1/activity" },
    activityId: "https://kith.example/users/alice/statuses/1/activity",
    activityType: "https://www.w3.org/ns/activitystreams#Create",
    attempt: 0,
    traceContext: {},
  };
  return inboxes.map((inbox, n) => ({
    ...shared,
    id: `00000000-0000-4000-8000-00000000000${n}` as OutboxMessage["id"],
    inbox,
    sharedInbox: inbox.endsWith("/inbox"),
    actorIds: [`https://remote.example/users/a${n}`],
    started: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString(),
    headers: n === 0 ? { "Collection-Synchronization": "url=..." } : {},
    ...changes,
  }));
}

const INBOXES = ["https://a.example/inbox", "https://b.example/inbox", "https://c.example/users/x/inbox"];

describe("outbox batches", () => {
  it("stores one send's messages as batches of at most the size, each inbox's own part kept", () => {
    const messages = send(INBOXES);
    const batches = batchOutboxMessages(messages, 2);
    expect(batches?.map((batch) => batch.inboxes.map((inbox) => inbox.inbox))).toEqual([INBOXES.slice(0, 2), INBOXES.slice(2)]);
    const [first] = batches ?? [];
    expect(first?.type).toBe(OUTBOX_BATCH_TYPE);
    expect(first && isOutboxBatch(JSON.parse(JSON.stringify(first)))).toBe(true);
    expect(first?.inboxes[0]).toEqual({
      id: messages[0]?.id,
      inbox: INBOXES[0],
      sharedInbox: true,
      actorIds: messages[0]?.actorIds,
      headers: { "Collection-Synchronization": "url=..." },
    });
  });

  it("gives back the messages Fedify made, the send's first start time on each", () => {
    const messages = send(INBOXES);
    const batches = batchOutboxMessages(messages, 10) ?? [];
    const [batch] = batches;
    expect(batches).toHaveLength(1);
    const again = batch ? outboxMessagesOf(batch, batch.inboxes.slice(1)) : [];
    expect(again).toEqual(messages.slice(1).map((message) => ({ ...message, started: messages[0]?.started })));
  });

  it("leaves alone what is not the first attempt of one send to several inboxes", () => {
    expect(batchOutboxMessages(send(INBOXES.slice(0, 1)), 10)).toBeNull();
    expect(batchOutboxMessages(send(INBOXES, { attempt: 1 }), 10)).toBeNull();
    expect(batchOutboxMessages(send(INBOXES, { orderingKey: "k" }), 10)).toBeNull();
    expect(batchOutboxMessages([...send(INBOXES.slice(0, 2)), ...send(INBOXES.slice(2))], 10)).toBeNull();
    expect(batchOutboxMessages([...send(INBOXES.slice(0, 2)), { type: "inbox", id: "x" }], 10)).toBeNull();
    expect(batchOutboxMessages(send([...INBOXES, "not a url"]), 10)).toBeNull();
    expect(isOutboxBatch({ type: "outbox", inbox: INBOXES[0] })).toBe(false);
  });
});
